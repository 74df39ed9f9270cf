/** Gasless quotes fetched from the API and signed by their takers ahead of a timed load (bench, chaos soak). */
import type { Hex, PrivateKeyAccount, TypedDataDefinition } from "viem";
import { mapLimit } from "./relayerStats";

type QuoteJson = {
  quote_id: string;
  permit2: TypedDataDefinition & { types: Record<string, unknown> };
  issues: { allowance: unknown; balance: unknown };
};

/** `onchainQuoteId`: the quote id the router's SwapSettled carries; `deadline`: the order's, in Unix seconds. */
export type SignedGaslessQuote = { quoteId: string; onchainQuoteId: string; deadline: number; signature: Hex; taker: PrivateKeyAccount };

export type SignedQuotesInput = {
  apiUrl: string;
  auth: Record<string, string>;
  chainId: number;
  /** Quote `i` goes to taker `i % takers.length`. */
  takers: readonly PrivateKeyAccount[];
  count: number;
  sellUsdc: bigint;
  slippageBps: number;
  concurrency: number;
  /** Called after each signed quote with how many are signed so far. */
  progress?: (signed: number) => void;
};

/** `count` USDC→WETH gasless quotes, each signed (Permit2 witness) by its taker, in order. */
export async function signedGaslessQuotes(input: SignedQuotesInput): Promise<SignedGaslessQuote[]> {
  let signed = 0;
  return mapLimit(
    Array.from({ length: input.count }, (_, index) => index),
    input.concurrency,
    async (index) => {
      const taker = input.takers[index % input.takers.length]!;
      const query = new URLSearchParams({
        chain_id: String(input.chainId),
        sell_token: "USDC",
        buy_token: "WETH",
        sell_amount: input.sellUsdc.toString(),
        taker: taker.address,
        permit2_owner: taker.address,
        slippage_bps: String(input.slippageBps),
      });
      const response = await fetch(`${input.apiUrl}/quote?${query}`, { headers: input.auth });
      if (response.status !== 200) throw new Error(`gasless quote: ${response.status} ${await response.text()}`);
      const quote = (await response.json()) as QuoteJson;
      if (quote.issues.allowance !== null || quote.issues.balance !== null) throw new Error(`taker ${taker.address} is not ready: ${JSON.stringify(quote.issues)}`);
      const { EIP712Domain: _domain, ...types } = quote.permit2.types;
      const signature = await taker.signTypedData({ ...quote.permit2, types } as TypedDataDefinition);
      input.progress?.(++signed);
      const message = quote.permit2.message as { deadline: string | bigint; witness: { quoteId: string } };
      return { quoteId: quote.quote_id, onchainQuoteId: message.witness.quoteId, deadline: Number(message.deadline), signature, taker };
    },
  );
}
