import { expect } from "chai";
import hre from "hardhat";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { erc20Abi, parseUnits } from "viem";
import { readManifest } from "../../sdk/chain/manifest";
import { devPropAmmAbi } from "../../sdk/abis/devPropAmmAbi";
import { propAmmAllowlistAbi } from "../../sdk/abis/propAmmAllowlistAbi";
import { routerRegistryAbi } from "../../sdk/abis/routerRegistryAbi";
import { propAmmPriceFromDecimal } from "../../sdk/amm/propAmmPrice";
import { deployDevnet } from "../../scripts/deploy/deployDevnet";
import { DEVNET_PROPAMMS } from "../../scripts/deploy/deployPropAmm";
import { hardhatClients } from "../../scripts/deploy/hardhatClients";
import { scaledTimeout } from "../fixtures/testTimeouts";

describe("the devnet's propAMM venue as npm start deploys it", function () {
  this.timeout(scaledTimeout(120_000));

  it("deploys the allowlist on the registry's administrator and the reference propAMM with its inventory and price, allowlisted, and records both in the manifest", async () => {
    const directory = mkdtempSync(join(tmpdir(), "devnet-propamm-"));
    try {
      const file = join(directory, "4663.json");
      const { manifest } = await deployDevnet(hre, file);
      expect(readManifest(file)).to.deep.equal(manifest);
      const { publicClient: client } = await hardhatClients(hre);
      const allowlist = manifest.contracts.propAmmAllowlist!;
      expect(allowlist).to.be.a("string");
      expect(await client.readContract({ address: allowlist, abi: propAmmAllowlistAbi, functionName: "registry" })).to.equal(manifest.contracts.routerRegistry);

      const spec = DEVNET_PROPAMMS[0]!;
      const symbolOf = (address: string) => manifest.tokens.find((token) => token.address === address)?.symbol;
      expect(manifest.propAmms).to.have.length(DEVNET_PROPAMMS.length);
      const [propAmm] = manifest.propAmms!;
      expect([propAmm!.name, symbolOf(propAmm!.token0), symbolOf(propAmm!.token1)]).to.deep.equal([spec.name, spec.token0, spec.token1]);
      expect(await client.readContract({ address: allowlist, abi: propAmmAllowlistAbi, functionName: "pairs" })).to.deep.equal([propAmm!.address]);
      const selector = await client.readContract({ address: allowlist, abi: propAmmAllowlistAbi, functionName: "SWAP_SELECTOR" });
      expect(await client.readContract({ address: allowlist, abi: propAmmAllowlistAbi, functionName: "tokensOf", args: [propAmm!.address, selector] })).to.deep.equal([propAmm!.token0, propAmm!.token1]);

      // Its operator is the registry's administrator, the devnet's deployer; its price and inventory are the spec's.
      const admin = await client.readContract({ address: manifest.contracts.routerRegistry, abi: routerRegistryAbi, functionName: "admin" });
      expect(await client.readContract({ address: propAmm!.address, abi: devPropAmmAbi, functionName: "owner" })).to.equal(admin);
      const [decimals0, decimals1] = [18, 6];
      expect(await client.readContract({ address: propAmm!.address, abi: devPropAmmAbi, functionName: "price" })).to.equal(propAmmPriceFromDecimal(spec.price, decimals0, decimals1));
      expect(await client.readContract({ address: propAmm!.address, abi: devPropAmmAbi, functionName: "spreadBps" })).to.equal(spec.spreadBps);
      expect(await client.readContract({ address: propAmm!.token0, abi: erc20Abi, functionName: "balanceOf", args: [propAmm!.address] })).to.equal(parseUnits(spec.inventory0, decimals0));
      expect(await client.readContract({ address: propAmm!.token1, abi: erc20Abi, functionName: "balanceOf", args: [propAmm!.address] })).to.equal(parseUnits(spec.inventory1, decimals1));
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
