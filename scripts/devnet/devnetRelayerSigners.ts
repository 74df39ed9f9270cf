import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { parseEther, toHex, type Address } from "viem";
import { openKeyBackends } from "../../relayer/signing/openKeyBackends";
import { parseSignerSpecs } from "../../relayer/signing/signerSpecs";
import { devAccounts } from "./devAccounts";

/** What a devnet hands its relayer to sign with, and the addresses that sign. */
export type DevnetRelayerSigners = { env: Record<string, string>; addresses: Address[]; source: string };

/**
 * The devnet relayer's signers: development accounts #16-#19 as raw keys, or, when the devnet runs
 * with RELAYER_SIGNERS set (say, a SoftHSM2 key: `RELAYER_SIGNERS='pkcs11:…' npm start`), those keys,
 * opened here once to learn their addresses (the relayer opens them again in its own process) and
 * given 10,000 ETH each, as the development accounts have.
 */
export async function devnetRelayerSigners(hre: HardhatRuntimeEnvironment, configured = process.env.RELAYER_SIGNERS?.trim()): Promise<DevnetRelayerSigners> {
  if (configured === undefined || configured === "") {
    const signers = devAccounts(hre).slice(16, 20);
    return { env: { RELAYER_PRIVATE_KEYS: signers.map((account) => account.privateKey).join(",") }, addresses: signers.map((account) => account.address), source: "development accounts #16-#19" };
  }
  const backends = await openKeyBackends(parseSignerSpecs(configured), { production: false });
  const addresses = backends.map((backend) => backend.address);
  const kinds = [...new Set(backends.map((backend) => backend.kind))].join(", ");
  await Promise.all(backends.map((backend) => backend.close()));
  for (const address of addresses) await hre.network.provider.request({ method: "hardhat_setBalance", params: [address, toHex(parseEther("10000"))] });
  return { env: { RELAYER_SIGNERS: configured }, addresses, source: `RELAYER_SIGNERS (${kinds})` };
}
