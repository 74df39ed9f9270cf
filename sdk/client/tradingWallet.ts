import type { Account, Chain, PublicClient, Transport, WalletClient } from "viem";

/** A viem wallet client with an account: it signs the permit and sends transactions. */
export type TradingWallet = WalletClient<Transport, Chain | undefined, Account>;

/** The chain reads the client needs: registry reads and simulation (`call`), and receipts. */
export type ChainReader = Pick<PublicClient, "call" | "waitForTransactionReceipt">;
