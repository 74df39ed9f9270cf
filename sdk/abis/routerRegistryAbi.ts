/** ABI of IRouterRegistry (contracts/interfaces/IRouterRegistry.sol). A test keeps it equal to the compiled artifact. */
export const routerRegistryAbi = [
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      },
      {
        "internalType": "address",
        "name": "router",
        "type": "address"
      }
    ],
    "name": "RouterRegistryAlreadyCurrent",
    "type": "error"
  },
  {
    "inputs": [
      {
        "internalType": "uint64",
        "name": "dwell",
        "type": "uint64"
      },
      {
        "internalType": "uint64",
        "name": "maxDwell",
        "type": "uint64"
      }
    ],
    "name": "RouterRegistryDwellTooLong",
    "type": "error"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      },
      {
        "internalType": "uint64",
        "name": "closedAt",
        "type": "uint64"
      }
    ],
    "name": "RouterRegistryDwellWindowClosed",
    "type": "error"
  },
  {
    "inputs": [
      {
        "internalType": "uint256",
        "name": "featureId",
        "type": "uint256"
      }
    ],
    "name": "RouterRegistryFeatureIdTooLarge",
    "type": "error"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      }
    ],
    "name": "RouterRegistryFeatureNotInitialized",
    "type": "error"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      }
    ],
    "name": "RouterRegistryFeatureNotPaused",
    "type": "error"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      }
    ],
    "name": "RouterRegistryFeaturePaused",
    "type": "error"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      }
    ],
    "name": "RouterRegistryNoPreviousRouter",
    "type": "error"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "router",
        "type": "address"
      }
    ],
    "name": "RouterRegistryNotAContract",
    "type": "error"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      }
    ],
    "name": "RouterRegistryNothingStaged",
    "type": "error"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "router",
        "type": "address"
      }
    ],
    "name": "RouterRegistrySyncFailed",
    "type": "error"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "caller",
        "type": "address"
      }
    ],
    "name": "RouterRegistryUnauthorized",
    "type": "error"
  },
  {
    "inputs": [],
    "name": "RouterRegistryZeroAddress",
    "type": "error"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "admin",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "proposed",
        "type": "address"
      }
    ],
    "name": "AdminProposed",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "previousAdmin",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "newAdmin",
        "type": "address"
      }
    ],
    "name": "AdminTransferred",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": false,
        "internalType": "uint64",
        "name": "previousDwell",
        "type": "uint64"
      },
      {
        "indexed": false,
        "internalType": "uint64",
        "name": "newDwell",
        "type": "uint64"
      }
    ],
    "name": "DwellUpdated",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "current",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "address",
        "name": "by",
        "type": "address"
      }
    ],
    "name": "FeaturePaused",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "current",
        "type": "address"
      }
    ],
    "name": "FeatureUnpaused",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "account",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "bool",
        "name": "enabled",
        "type": "bool"
      }
    ],
    "name": "PauserUpdated",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "current",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "previous",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "uint64",
        "name": "dwellUntil",
        "type": "uint64"
      }
    ],
    "name": "RouterActivated",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "router",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "address",
        "name": "replaced",
        "type": "address"
      }
    ],
    "name": "RouterStaged",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "router",
        "type": "address"
      }
    ],
    "name": "RouterUnstaged",
    "type": "event"
  },
  {
    "inputs": [],
    "name": "acceptAdmin",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      }
    ],
    "name": "activate",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "admin",
    "outputs": [
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "dwell",
    "outputs": [
      {
        "internalType": "uint64",
        "name": "",
        "type": "uint64"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      }
    ],
    "name": "dwellDeadline",
    "outputs": [
      {
        "internalType": "uint64",
        "name": "closesAt",
        "type": "uint64"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      }
    ],
    "name": "getFeature",
    "outputs": [
      {
        "internalType": "address",
        "name": "previous",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "current",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "staged",
        "type": "address"
      },
      {
        "internalType": "bool",
        "name": "paused",
        "type": "bool"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "account",
        "type": "address"
      }
    ],
    "name": "isPauser",
    "outputs": [
      {
        "internalType": "bool",
        "name": "",
        "type": "bool"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      }
    ],
    "name": "next",
    "outputs": [
      {
        "internalType": "address",
        "name": "router",
        "type": "address"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "uint256",
        "name": "featureId",
        "type": "uint256"
      }
    ],
    "name": "ownerOf",
    "outputs": [
      {
        "internalType": "address",
        "name": "router",
        "type": "address"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      }
    ],
    "name": "pause",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "pendingAdmin",
    "outputs": [
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      }
    ],
    "name": "prev",
    "outputs": [
      {
        "internalType": "address",
        "name": "router",
        "type": "address"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "proposed",
        "type": "address"
      }
    ],
    "name": "proposeAdmin",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "uint64",
        "name": "newDwell",
        "type": "uint64"
      }
    ],
    "name": "setDwell",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "account",
        "type": "address"
      },
      {
        "internalType": "bool",
        "name": "enabled",
        "type": "bool"
      }
    ],
    "name": "setPauser",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      },
      {
        "internalType": "address",
        "name": "router",
        "type": "address"
      }
    ],
    "name": "stage",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      },
      {
        "internalType": "address",
        "name": "router",
        "type": "address"
      }
    ],
    "name": "statusOf",
    "outputs": [
      {
        "internalType": "bool",
        "name": "paused",
        "type": "bool"
      },
      {
        "internalType": "uint64",
        "name": "activeUntil",
        "type": "uint64"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      }
    ],
    "name": "unpause",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "uint128",
        "name": "featureId",
        "type": "uint128"
      }
    ],
    "name": "unstage",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  }
] as const;
