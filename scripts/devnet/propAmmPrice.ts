import { erc20Abi, formatUnits, type Address } from "viem";
import { devPropAmmAbi } from "../../sdk/abis/devPropAmmAbi";
import { propAmmPriceFromDecimal, propAmmPriceToDecimal } from "../../sdk/amm/propAmmPrice";
import type { ConnectedChain } from "../chainConnection";
import { sendOperatorWrite } from "../operatorWrites";

/**
 * `devnet-tools propamm-price`: sets a DevPropAmm's price, given as people say it (whole token1 per
 * whole token0), and its spread (kept when not given), signed by the node's first account (the
 * devnet's deployer, who operates the devnet's propAMM). Returns the exit code (0 set, 1 refused).
 */
export async function setPropAmmPrice(chain: ConnectedChain, pair: Address, price: string, spreadBps: number | undefined, print: (line: string) => void): Promise<number> {
  const { client } = chain;
  const read = <const name extends "token0" | "token1" | "spreadBps" | "price">(functionName: name) => client.readContract({ address: pair, abi: devPropAmmAbi, functionName });
  let token0: Address;
  let token1: Address;
  let currentSpread: number;
  try {
    [token0, token1, currentSpread] = await Promise.all([read("token0"), read("token1"), read("spreadBps")]);
  } catch {
    print(`refused: ${pair} is not a DevPropAmm (it has no token0/token1/spreadBps); npm run venues -- list shows the propAMMs`);
    return 1;
  }
  const decimalsOf = (token: Address) => client.readContract({ address: token, abi: erc20Abi, functionName: "decimals" });
  const symbolOf = (token: Address) => chain.manifest.tokens.find((candidate) => candidate.address.toLowerCase() === token.toLowerCase())?.symbol ?? token;
  const [decimals0, decimals1] = await Promise.all([decimalsOf(token0), decimalsOf(token1)]);
  let onChainPrice: bigint;
  try {
    onChainPrice = propAmmPriceFromDecimal(price, decimals0, decimals1);
  } catch (error) {
    print(`refused: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const spread = spreadBps ?? currentSpread;
  const ok = await sendOperatorWrite({ chain, print, env: {} }, { address: pair, abi: devPropAmmAbi, functionName: "setPrice", args: [onChainPrice, spread] }, {});
  if (!ok) return 1;
  const [now, oneToken0] = await Promise.all([read("price"), client.readContract({ address: pair, abi: devPropAmmAbi, functionName: "getAmountOut", args: [true, 10n ** BigInt(decimals0)] })]);
  print(
    `${pair} now prices 1 ${symbolOf(token0)} at ${propAmmPriceToDecimal(now, decimals0, decimals1)} ${symbolOf(token1)}, spread ${spread} bps: selling 1 ${symbolOf(token0)} pays ${formatUnits(oneToken0, decimals1)} ${symbolOf(token1)}`,
  );
  return 0;
}
