import { encodeAbiParameters, erc20Abi, isAddressEqual, keccak256, parseUnits, toHex, type Address, type Hex } from "viem";
import type { ChainFileTokenHolder } from "../../sdk/chain/chainFile";
import type { ManifestToken } from "../../sdk/chain/manifest";
import type { HardhatClients } from "../deploy/hardhatClients";
import { writeAndWait } from "../deploy/writeAndWait";

/** How far the balance-slot probe looks: the first slots hold a token's balances mapping in practice. */
const PROBE_SLOTS = 100;
/** ETH each development account holds on the fork, as on the devnet. */
export const FORK_ACCOUNT_ETH = parseUnits("1000000", 18);
/** Whole tokens each of the first accounts is granted. */
export const FORK_TOKEN_GRANT = 1_000_000n;
/** Wrapped native each of the first accounts deposits (real ETH backs it, so withdrawals work). */
export const FORK_WRAPPED_GRANT = parseUnits("1000", 18);

/** ETH an impersonated holder is topped up to, when it holds less, to pay for its transfers on the fork. */
const HOLDER_GAS_ETH = parseUnits("1", 18);

/** How one token reached the development accounts (the banner lists it per token). */
export type TokenFunding = Readonly<{ token: ManifestToken; how: string; funded: boolean }>;

const WETH_DEPOSIT_ABI = [{ type: "function", name: "deposit", stateMutability: "payable", inputs: [], outputs: [] }] as const;

type Layout = "solidity" | "vyper";

function balanceKey(layout: Layout, account: Address, slot: bigint): Hex {
  // Solidity: keccak(key . slot); Vyper: keccak(slot . key).
  return layout === "solidity"
    ? keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [account, slot]))
    : keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "address" }], [slot, account]));
}

/**
 * The storage slot of `token`'s balances mapping, found by writing a marker under each candidate key
 * of `account` and asking `balanceOf` (each write is put back at once). Undefined when no slot of the
 * first PROBE_SLOTS answers (a token that computes balances, rebasing or proxied storage elsewhere).
 */
export async function probeBalanceSlot(clients: HardhatClients, token: Address, account: Address): Promise<{ layout: Layout; slot: bigint } | undefined> {
  const marker = 0x5eed_0000_0000_0000_0000_1234n;
  for (let slot = 0n; slot < BigInt(PROBE_SLOTS); slot += 1n) {
    for (const layout of ["solidity", "vyper"] as const) {
      const key = balanceKey(layout, account, slot);
      const previous = (await clients.publicClient.getStorageAt({ address: token, slot: key })) ?? toHex(0n, { size: 32 });
      await clients.testClient.setStorageAt({ address: token, index: key, value: toHex(marker, { size: 32 }) });
      const answered = await clients.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [account] }).catch(() => undefined);
      await clients.testClient.setStorageAt({ address: token, index: key, value: previous });
      if (answered === marker) return { layout, slot };
    }
  }
  return undefined;
}

/**
 * Grants `token` from `holder` by impersonating it on the fork (hardhat_impersonateAccount) and
 * transferring to each taker an equal share of what it holds, at most FORK_TOKEN_GRANT whole tokens.
 * Real transfers: a rebasing or share-based token accounts for them as it would for anyone. Tops the
 * holder's ETH up to HOLDER_GAS_ETH for the gas when it holds less (on the fork only).
 */
async function grantFromHolder(clients: HardhatClients, token: ManifestToken, holder: ChainFileTokenHolder, takers: readonly Address[]): Promise<TokenFunding> {
  const held = await clients.publicClient.readContract({ address: token.address, abi: erc20Abi, functionName: "balanceOf", args: [holder.holder] });
  const share = held / BigInt(takers.length) < FORK_TOKEN_GRANT * 10n ** BigInt(token.decimals) ? held / BigInt(takers.length) : FORK_TOKEN_GRANT * 10n ** BigInt(token.decimals);
  if (share === 0n) return { token, funded: false, how: `not granted: no balances mapping found in storage, and holder ${holder.holder} (${holder.source}) holds too little at the fork block` };
  if ((await clients.publicClient.getBalance({ address: holder.holder })) < HOLDER_GAS_ETH) await clients.testClient.setBalance({ address: holder.holder, value: HOLDER_GAS_ETH });
  await clients.testClient.impersonateAccount({ address: holder.holder });
  try {
    const wallet = clients.walletClients[0]!;
    for (const taker of takers) {
      const hash = await wallet.writeContract({ account: holder.holder, address: token.address, abi: erc20Abi, functionName: "transfer", args: [taker, share] });
      const receipt = await clients.publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error(`transfer of ${token.symbol} from holder ${holder.holder} to ${taker} reverted on the fork`);
    }
  } finally {
    await clients.testClient.stopImpersonatingAccount({ address: holder.holder });
  }
  const whole = share / 10n ** BigInt(token.decimals);
  return { token, funded: true, how: `${whole.toLocaleString("en-US")} per account, transferred from holder ${holder.holder} (impersonated; ${holder.source})` };
}

/**
 * Funds the development accounts on the fork: every account gets ETH (hardhat_setBalance); the first
 * `granted` get the wrapped native token by depositing ETH, and every other token by writing their
 * balance in the token's own storage (the slot probed once per token). A token whose slot is not found
 * is transferred from the holder `holders` names for it (impersonated), else not granted, and says so.
 * Writing balances does not change a token's total supply.
 */
export async function fundForkAccounts(
  clients: HardhatClients,
  accounts: readonly Address[],
  tokens: readonly ManifestToken[],
  wrappedNative: Address,
  holders: readonly ChainFileTokenHolder[] = [],
  granted = 10,
): Promise<TokenFunding[]> {
  for (const account of accounts) await clients.testClient.setBalance({ address: account, value: FORK_ACCOUNT_ETH });
  const takers = accounts.slice(0, granted);
  const fundings: TokenFunding[] = [];
  for (const token of tokens) {
    if (token.address === wrappedNative) {
      for (const account of takers) {
        const wallet = clients.walletClients.find((candidate) => candidate.account.address === account);
        if (wallet === undefined) throw new Error(`the fork does not unlock development account ${account}`);
        await writeAndWait(clients, wallet, { address: wrappedNative, abi: WETH_DEPOSIT_ABI, functionName: "deposit", args: [], value: FORK_WRAPPED_GRANT });
      }
      fundings.push({ token, funded: true, how: `deposit() of ${FORK_WRAPPED_GRANT / 10n ** 18n} ETH per account` });
      continue;
    }
    const found = await probeBalanceSlot(clients, token.address, takers[0]!);
    if (found === undefined) {
      const holder = holders.find((entry) => isAddressEqual(entry.token, token.address));
      fundings.push(
        holder === undefined
          ? { token, funded: false, how: `not granted: no balances mapping in storage slots 0-${PROBE_SLOTS - 1}, and the chain file names no holder (tokenHolders)` }
          : await grantFromHolder(clients, token, holder, takers),
      );
      continue;
    }
    const amount = toHex(FORK_TOKEN_GRANT * 10n ** BigInt(token.decimals), { size: 32 });
    for (const account of takers) await clients.testClient.setStorageAt({ address: token.address, index: balanceKey(found.layout, account, found.slot), value: amount });
    fundings.push({ token, funded: true, how: `${FORK_TOKEN_GRANT.toLocaleString("en-US")} per account, written to balances slot ${found.slot} (${found.layout} layout)` });
  }
  return fundings;
}
