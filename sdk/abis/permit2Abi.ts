/** The Permit2 reads clients need: its domain separator, unordered-nonce bitmaps and ERC20 allowances. */
export const permit2Abi = [
  {
    type: "function",
    name: "DOMAIN_SEPARATOR",
    stateMutability: "view",
    inputs: [],
    outputs: [{ name: "", type: "bytes32" }],
  },
  {
    type: "function",
    name: "nonceBitmap",
    stateMutability: "view",
    inputs: [
      { name: "owner", type: "address" },
      { name: "wordPosition", type: "uint256" },
    ],
    outputs: [{ name: "", type: "uint256" }],
  },
  {
    type: "function",
    name: "invalidateUnorderedNonces",
    stateMutability: "nonpayable",
    inputs: [
      { name: "wordPos", type: "uint256" },
      { name: "mask", type: "uint256" },
    ],
    outputs: [],
  },
] as const;
