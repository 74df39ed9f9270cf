import { erc20Abi, type Address, type Hex, type PublicClient } from "viem";
import { NATIVE_TOKEN_LOWERCASE, permit2Abi } from "../../../sdk";
import type { QuoteEngine } from "../response/buildQuote";

const NATIVE = NATIVE_TOKEN_LOWERCASE;

/** State reads at the quoted block; a block's state never changes, so they are cached with it. */
export function blockReads(engine: QuoteEngine, client: PublicClient, blockHash: Hex, blockNumber: bigint) {
  const cached = <T>(key: string, load: () => Promise<T>) => engine.blockCache.get(blockHash, key, load);
  return {
    balanceOf: (token: Address, owner: Address): Promise<bigint> =>
      cached(`balance:${token}:${owner}`, () =>
        token === NATIVE
          ? client.getBalance({ address: owner, blockNumber })
          : client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [owner], blockNumber }),
      ),
    allowance: (token: Address, owner: Address, spender: Address): Promise<bigint> =>
      cached(`allowance:${token}:${owner}:${spender}`, () =>
        client.readContract({ address: token, abi: erc20Abi, functionName: "allowance", args: [owner, spender], blockNumber }),
      ),
    nonceBitmap: (permit2: Address, owner: Address, word: bigint): Promise<bigint> =>
      cached(`bitmap:${owner}:${word}`, () => client.readContract({ address: permit2, abi: permit2Abi, functionName: "nonceBitmap", args: [owner, word], blockNumber })),
    hasCode: (account: Address): Promise<boolean> =>
      cached(`code:${account}`, async () => ((await client.getCode({ address: account, blockNumber })) ?? "0x") !== "0x"),
  };
}
