import { expect } from "chai";
import hre from "hardhat";
import { erc20Abi, getAddress, parseEther, type Address } from "viem";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { chainFileSchema, type ChainFileTokenHolder } from "../../sdk/chain/chainFile";
import type { ManifestToken } from "../../sdk/chain/manifest";
import { hardhatClients, type HardhatClients } from "../../scripts/deploy/hardhatClients";
import { FORK_TOKEN_GRANT, fundForkAccounts, probeBalanceSlot } from "../../scripts/fork/forkFunding";
import { standInChainFile } from "../../scripts/standin/standInChain";

/** A fresh address nobody holds a key to here: development accounts are unlocked, these are not. */
const freshAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

/**
 * Fork funding's fallback: a token whose balances are not a storage mapping the probe can write
 * (here a rebasing token: balanceOf is shares times a factor of 2, so a written marker never reads back) is
 * granted by impersonating the holder the chain file names and transferring from it, on the Hardhat
 * network, with the real token.
 */
describe("Fork funding: a token the balance-slot probe cannot write is transferred from the chain file's holder", function () {
  let clients: HardhatClients;
  let rebasing: Address;
  let plain: Address;
  let holder: Address;
  let takers: Address[];
  const unrelatedWrappedNative = freshAddress();
  const held = parseEther("600");

  const token = (address: Address, symbol: string, decimals = 18): ManifestToken => ({ address, symbol, name: symbol, decimals });
  const balanceOf = (address: Address, account: Address) => clients.publicClient.readContract({ address, abi: erc20Abi, functionName: "balanceOf", args: [account] });
  const supplyOf = (address: Address) => clients.publicClient.readContract({ address, abi: erc20Abi, functionName: "totalSupply" });

  beforeEach(async () => {
    clients = await hardhatClients(hre);
    const deployer = clients.walletClients[0]!;
    holder = freshAddress();
    takers = [freshAddress(), freshAddress()];
    const adversarial = await hre.viem.deployContract("AdversarialToken", [], { client: { wallet: deployer, public: clients.publicClient } });
    // Balances are shares x 2: a marker written under any key reads back doubled, so probing finds no slot.
    await adversarial.write.rebase([2n * 10n ** 18n]);
    await adversarial.write.mint([holder, held]);
    rebasing = adversarial.address;
    const dev = await hre.viem.deployContract("DevToken", ["Plain Dollar", "PUSD", 6, deployer.account.address], { client: { wallet: deployer, public: clients.publicClient } });
    plain = dev.address;
  });

  it("finds no balances slot for the rebasing token, and does find one for an ordinary ERC-20", async () => {
    expect(await probeBalanceSlot(clients, rebasing, takers[0]!)).to.equal(undefined);
    expect(await probeBalanceSlot(clients, plain, takers[0]!)).to.not.equal(undefined);
  });

  it("impersonates the named holder and transfers each taker an equal share of its balance, capped at the grant; the supply is unchanged and the impersonation ends", async () => {
    const holders: ChainFileTokenHolder[] = [{ token: rebasing, holder, source: "test: the account the token was minted to" }];
    const supplyBefore = await supplyOf(rebasing);
    const fundings = await fundForkAccounts(clients, takers, [token(rebasing, "REB"), token(plain, "PUSD", 6)], unrelatedWrappedNative, holders, takers.length);

    const share = held / BigInt(takers.length);
    for (const taker of takers) expect(await balanceOf(rebasing, taker)).to.equal(share);
    expect(await balanceOf(rebasing, holder)).to.equal(0n);
    expect(await supplyOf(rebasing)).to.equal(supplyBefore);
    // The ordinary token still goes through its storage: the full grant, no holder involved.
    for (const taker of takers) expect(await balanceOf(plain, taker)).to.equal(FORK_TOKEN_GRANT * 10n ** 6n);

    const [reb, pusd] = fundings;
    expect(reb).to.deep.include({ funded: true });
    expect(reb!.how).to.equal(`300 per account, transferred from holder ${holder} (impersonated; test: the account the token was minted to)`);
    expect(pusd!.how).to.match(/^1,000,000 per account, written to balances slot \d+ \(solidity layout\)$/);

    // Nothing is left unlocked: the holder cannot send once funding is over.
    const failure = await clients.walletClients[0]!.sendTransaction({ account: holder, to: takers[0]!, value: 1n }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).to.match(/unknown account|not owned|impersonat/i);
  });

  it("grants at most the fork's grant per account from a holder with more", async () => {
    const rich = freshAddress();
    const grant = FORK_TOKEN_GRANT * 10n ** 18n;
    const adversarial = await hre.viem.getContractAt("AdversarialToken", rebasing, { client: { wallet: clients.walletClients[0]!, public: clients.publicClient } });
    await adversarial.write.mint([rich, grant * 5n]);
    const [funding] = await fundForkAccounts(clients, takers, [token(rebasing, "REB")], unrelatedWrappedNative, [{ token: rebasing, holder: rich, source: "test" }], takers.length);
    expect(funding!.funded).to.equal(true);
    for (const taker of takers) expect(await balanceOf(rebasing, taker)).to.equal(grant);
    expect(await balanceOf(rebasing, rich)).to.equal(grant * 3n);
  });

  it("says the token is not granted, naming tokenHolders, when the chain file names no holder for it", async () => {
    const [funding] = await fundForkAccounts(clients, takers, [token(rebasing, "REB")], unrelatedWrappedNative, [], takers.length);
    expect(funding).to.deep.include({ funded: false });
    expect(funding!.how).to.include("names no holder (tokenHolders)");
    for (const taker of takers) expect(await balanceOf(rebasing, taker)).to.equal(0n);
  });

  it("says the token is not granted when the named holder holds nothing at the fork block, and sends nothing", async () => {
    const empty = freshAddress();
    const [funding] = await fundForkAccounts(clients, takers, [token(rebasing, "REB")], unrelatedWrappedNative, [{ token: rebasing, holder: empty, source: "a stale explorer list" }], takers.length);
    expect(funding).to.deep.include({ funded: false });
    expect(funding!.how).to.include(`holder ${empty} (a stale explorer list) holds too little`);
    expect(await clients.publicClient.getTransactionCount({ address: empty })).to.equal(0);
  });

  it("refuses a chain file naming two holders for one token, naming the field", () => {
    const file = standInChainFile();
    const entry = { token: getAddress(rebasing), holder: freshAddress(), source: "one list" };
    const parsed = chainFileSchema.safeParse({ ...file, tokenHolders: [entry, { ...entry, holder: freshAddress(), source: "another list" }] });
    expect(parsed.success).to.equal(false);
    expect(parsed.error!.issues[0]!.path).to.deep.equal(["tokenHolders", 1, "token"]);
    expect(parsed.error!.issues[0]!.message).to.include("has two holders");
    expect(chainFileSchema.safeParse({ ...file, tokenHolders: [{ ...entry, holder: "0x1234" }] }).success).to.equal(false);
  });
});
