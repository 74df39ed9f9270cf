import { createWalletClient, custom, defineChain, getAddress, hexToBigInt, hexToBytes, hexToNumber, type Chain, type EIP1193RequestFn, type Hex } from "viem";
import { devnetChain } from "../chain/devnet";
import { ClientConfigError } from "../errors/client";
import type { TradingWallet } from "./tradingWallet";

/** What the adapter hands to `signer.sendTransaction`: ethers v6's `TransactionRequest` fields. */
export type EthersTransactionRequest = {
  from?: string;
  to?: string | null;
  data?: string;
  value?: bigint;
  nonce?: number;
  gasLimit?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  chainId?: bigint;
};

type TypedDataFields = Record<string, Array<{ name: string; type: string }>>;

/**
 * The part of an ethers v6 `Signer` the adapter uses (a `Wallet`, a `JsonRpcSigner` from a
 * `BrowserProvider`, …). Written out here so that the package needs ethers neither at run time nor in
 * its types: ethers stays an optional peer dependency.
 */
export type EthersSigner = {
  getAddress(): Promise<string>;
  signMessage(message: string | Uint8Array): Promise<string>;
  signTypedData(domain: Record<string, unknown>, types: TypedDataFields, value: Record<string, unknown>): Promise<string>;
  sendTransaction(transaction: EthersTransactionRequest): Promise<{ hash: string }>;
  /** An ethers `Provider`; chain reads need a JSON-RPC one (`JsonRpcProvider`, `BrowserProvider`, …). */
  readonly provider: object | null;
};

export type FromEthersSignerOptions = {
  /** The wallet's chain; by default the devnet's for chain 4663, else a minimal chain for the provider's id. */
  chain?: Chain;
  /** How often receipts are polled when the client reads the chain through this wallet; viem's default otherwise. */
  pollingInterval?: number;
};

type JsonRpcSend = (method: string, params: unknown[]) => Promise<unknown>;
type NetworkReader = { getNetwork(): Promise<{ chainId: bigint }> };

const quantity = (value: unknown): bigint | undefined => (typeof value === "string" ? hexToBigInt(value as Hex) : undefined);

/** viem's JSON-RPC transaction request (hex quantities) as ethers' `TransactionRequest` (bigints). */
function ethersTransaction(request: Record<string, unknown>): EthersTransactionRequest {
  const transaction: EthersTransactionRequest = {
    from: request.from as string | undefined,
    to: request.to as string | undefined,
    data: request.data as string | undefined,
    value: quantity(request.value),
    gasLimit: quantity(request.gas),
    gasPrice: quantity(request.gasPrice),
    maxFeePerGas: quantity(request.maxFeePerGas),
    maxPriorityFeePerGas: quantity(request.maxPriorityFeePerGas),
    nonce: typeof request.nonce === "string" ? hexToNumber(request.nonce as Hex) : undefined,
    chainId: quantity(request.chainId),
  };
  // ethers fills what is absent (nonce, gas, fees) from its provider; an explicit undefined is absent.
  return Object.fromEntries(Object.entries(transaction).filter(([, value]) => value !== undefined)) as EthersTransactionRequest;
}

/**
 * The types ethers' encoder accepts: no `EIP712Domain` (ethers derives it from the domain) and only the
 * types reachable from the primary type, so that the primary type is the one root. The EIP-712 hash
 * covers exactly those types, so what is signed does not change.
 */
function reachableTypes(types: TypedDataFields, primaryType: string): TypedDataFields {
  const kept: TypedDataFields = {};
  const visit = (name: string) => {
    const fields = types[name];
    if (fields === undefined || name in kept) return;
    kept[name] = fields;
    for (const field of fields) visit(field.type.replace(/(\[\d*\])+$/, ""));
  };
  visit(primaryType);
  return kept;
}

/**
 * An ethers v6 `Signer` as a `TradingWallet`, so it works wherever the client takes a viem wallet:
 * onboarding (`personal_sign`), approvals and swaps (`signer.sendTransaction`, which fills gas and fees;
 * the nonce is the node's pending count), permit and gasless signatures (`signer.signTypedData`). Other
 * JSON-RPC calls, such as the receipts the client waits for without a `publicClient`, go to its provider.
 *
 * @example
 * const wallet = await fromEthersSigner(new Wallet(privateKey, new JsonRpcProvider(rpcUrl)));
 * const { receipt } = await client.executeQuote(quote, wallet);
 */
export async function fromEthersSigner(signer: EthersSigner, options: FromEthersSignerOptions = {}): Promise<TradingWallet> {
  const provider = signer.provider as (Partial<NetworkReader> & { send?: JsonRpcSend }) | null;
  const address = getAddress(await signer.getAddress());
  const chain = options.chain ?? (await chainOf(provider));

  const request = (async ({ method, params }: { method: string; params?: unknown }) => {
    const args = (params ?? []) as unknown[];
    switch (method) {
      case "eth_accounts":
      case "eth_requestAccounts":
        return [address];
      case "eth_sendTransaction":
      case "wallet_sendTransaction": {
        const transaction = ethersTransaction(args[0] as Record<string, unknown>);
        // ethers caches identical provider calls for 250 ms, so a swap sent right after its approval
        // was mined would get the approval's nonce again; the node's pending count, asked directly, is current.
        if (transaction.nonce === undefined && typeof provider?.send === "function") {
          transaction.nonce = hexToNumber((await provider.send.call(provider, "eth_getTransactionCount", [address, "pending"])) as Hex);
        }
        return (await signer.sendTransaction(transaction)).hash;
      }
      case "personal_sign":
        // viem sends the message as hex; ethers signs a string as UTF-8 text, so pass the bytes.
        return signer.signMessage(hexToBytes(args[0] as Hex));
      case "eth_signTypedData_v4": {
        const typed = JSON.parse(args[1] as string) as { domain: Record<string, unknown>; types: TypedDataFields; primaryType: string; message: Record<string, unknown> };
        return signer.signTypedData(typed.domain, reachableTypes(typed.types, typed.primaryType), typed.message);
      }
      default:
        if (typeof provider?.send !== "function") {
          if (method === "eth_chainId") return `0x${chain.id.toString(16)}`;
          throw new ClientConfigError(
            `the ethers signer's provider cannot answer ${method}`,
            "Connect the signer to a JSON-RPC provider (JsonRpcProvider, BrowserProvider), or pass publicClient to createTradingClient for chain reads.",
          );
        }
        return provider.send.call(provider, method, args);
    }
  }) as EIP1193RequestFn;

  return createWalletClient({ account: address, chain, transport: custom({ request }), pollingInterval: options.pollingInterval });
}

async function chainOf(provider: Partial<NetworkReader> | null): Promise<Chain> {
  if (typeof provider?.getNetwork !== "function") {
    throw new ClientConfigError("the ethers signer has no provider, so its chain is unknown", "Connect the signer to a provider (signer.connect(provider)), or pass options.chain.");
  }
  const id = Number((await provider.getNetwork.call(provider)).chainId);
  if (id === devnetChain.id) return devnetChain;
  return defineChain({ id, name: `chain ${id}`, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [] } } });
}
