/**
 * Deploys our contracts to the chain a chain file describes, through the deterministic CREATE2
 * deployer, so they land at the same addresses on every chain (for the same deployer).
 *
 *   npm run deploy -- --chain <name|id> --rpc <url> [--deployer <address>]      the plan; sends nothing
 *   npm run deploy -- --chain <name|id> --rpc <url> --execute <signer> [--admin <address>] [--pauser <address>]...
 *
 * Before anything is sent, every external address of the chain file is checked on the chain. The
 * plan lists each step, whether the chain already has it, its gas and cost at the current gas price,
 * and the roles it grants. `--execute` sends the missing steps (idempotent and resumable), checks the
 * deployed code against the build, and writes the manifest and the standard-JSON inputs to `--out`
 * (default deployments/<chain name>). Build first: `npm run build`.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { BaseError, createPublicClient, createWalletClient, defineChain, formatEther, getAddress, http, isAddress, type Address, type PublicClient } from "viem";
import { ChainFileError, type ChainFile } from "../sdk/chain/chainFile";
import { manifestPath, readManifest, type DeploymentManifest } from "../sdk/chain/manifest";
import { selectChainFile } from "../sdk/chain/selectChainFile";
import { checkChainFile } from "./deploy/checkChainFile";
import { planDeploy } from "./deploy/create2Plan";
import { deployedManifest, writeDeployOutputs } from "./deploy/deployOutputs";
import { deploySigner } from "./deploy/deploySigner";
import { KeystoreFormatError, KeystoreKdfError, KeystoreNotFoundError, KeystorePasswordError, SignerChoiceError } from "../sdk/errors/keystore";
import { assessPlan, executePlan, stepCostWei, verifyDeployedCode, type PlanAssessment } from "./deploy/runDeployPlan";
import { printTable } from "./textTable";

const USAGE = [
  "usage: npm run deploy -- --chain <name|id> --rpc <url> [options]",
  "  --chain <name|id>     a chain file of chains/ by name (devnet), or a chain id (the file whose addresses match the chain)",
  "  --rpc <url>           the chain's JSON-RPC URL (default RPC_URL)",
  "  --execute             send the plan's missing transactions (without it, nothing is sent)",
  "  --admin <address>     hand the registry's administration to this account in two steps (it then calls acceptAdmin)",
  "  --pauser <address>    an account that may pause features (repeatable)",
  "  --deployer <address>  the deployer's address, to plan without a signer",
  "  --out <dir>           where the manifest and standard-JSON inputs go (default deployments/<chain name>)",
  "  --chains-dir <dir>    the chain files' folder (default chains)",
  "  --json                the plan and the result as JSON",
  "  signer: --keystore <file|name> [--keystore-dir <dir>] [--password-file <file>], or --unsafe-private-key (the raw key in OPERATOR_PRIVATE_KEY; never in production)",
].join("\n");

/** A refusal that names what to do; exits 2 (usage or a chain file that does not match the chain) rather than 1. */
class DeployRefusal extends Error {}

function addressOption(value: string | undefined, flag: string): Address | undefined {
  if (value === undefined) return undefined;
  if (!isAddress(value, { strict: false })) throw new DeployRefusal(`${flag} ${value} is not an address (0x and 40 hex digits)`);
  return getAddress(value);
}

function viemChain(chain: ChainFile, rpcUrl: string) {
  return defineChain({ id: chain.chainId, name: chain.displayName, nativeCurrency: chain.nativeCurrency, rpcUrls: { default: { http: [rpcUrl] } } });
}

function planRows(assessment: PlanAssessment, chain: ChainFile): string[][] {
  const symbol = chain.nativeCurrency.symbol;
  return [
    ["#", "step", "address", "on chain", "gas", `cost (${symbol})`, "roles"],
    ...assessment.steps.map(({ step, done, gas, estimated }, index) => [
      String(index + 1),
      step.label,
      step.target,
      done ? "yes" : "no",
      done ? "-" : `${estimated ? "" : "~"}${gas.toLocaleString("en-US")}`,
      done ? "-" : formatEther(stepCostWei({ step, gas }, assessment.gasPrice)),
      step.roles,
    ]),
  ];
}

function parseOptions(argv: string[]) {
  try {
    return parseOptionsStrictly(argv);
  } catch (error) {
    throw new DeployRefusal(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
}

function parseOptionsStrictly(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      chain: { type: "string" },
      rpc: { type: "string" },
      execute: { type: "boolean", default: false },
      admin: { type: "string" },
      pauser: { type: "string", multiple: true },
      deployer: { type: "string" },
      out: { type: "string" },
      "chains-dir": { type: "string" },
      json: { type: "boolean", default: false },
      keystore: { type: "string" },
      "keystore-dir": { type: "string" },
      "password-file": { type: "string" },
      "unsafe-private-key": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseOptions(argv);
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const rpcUrl = values.rpc ?? env.RPC_URL?.trim();
  if (values.chain === undefined || !rpcUrl) throw new DeployRefusal(`--chain and --rpc are required\n${USAGE}`);
  const progress = (line: string) => process.stderr.write(`${line}\n`);

  const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 1, timeout: 30_000 }), pollingInterval: 200, cacheTime: 0 }) as PublicClient;
  try {
    await client.getChainId();
  } catch (error) {
    throw new DeployRefusal(`cannot reach a chain at ${rpcUrl} (${error instanceof BaseError ? error.shortMessage : String(error)}): check --rpc`);
  }
  const chain = await selectChainFile(values.chain, { directory: resolve(values["chains-dir"] ?? resolve(__dirname, "../chains")), client });

  const signerChosen = values.keystore !== undefined || values["unsafe-private-key"] || /^(true|1)$/i.test(env.ALLOW_UNSAFE_PRIVATE_KEY?.trim() ?? "");
  const account = values.execute || signerChosen
    ? await deploySigner({ keystore: values.keystore, keystoreDir: values["keystore-dir"], passwordFile: values["password-file"], unsafePrivateKey: values["unsafe-private-key"], env })
    : undefined;
  const deployer = account?.address ?? addressOption(values.deployer, "--deployer");
  if (deployer === undefined) throw new DeployRefusal("the plan needs the deployer's address (the registry's first administrator): pass --deployer <address> or a signer");
  if (account !== undefined && values.deployer !== undefined && addressOption(values.deployer, "--deployer") !== account.address) {
    throw new DeployRefusal(`--deployer ${values.deployer} is not the signer's address ${account.address}`);
  }

  progress(`checking chain file ${chain.name} against chain ${chain.chainId} at ${rpcUrl}`);
  const problems = await checkChainFile(client, chain, deployer);
  if (problems.length > 0) {
    for (const { field, problem } of problems) progress(`chain file ${chain.name}: ${field}: ${problem}`);
    throw new DeployRefusal(`chain file ${chain.name} does not match the chain (${problems.length} problem(s) above): nothing was sent; correct chains/${chain.name}.json or --rpc`);
  }

  const plan = await planDeploy(client, chain, { deployer, admin: addressOption(values.admin, "--admin"), pausers: (values.pauser ?? []).map((pauser) => addressOption(pauser, "--pauser")!) });
  const assessment = await assessPlan(client, plan);
  const summary = {
    chain: chain.name,
    chainId: chain.chainId,
    deployer,
    gasPriceWei: assessment.gasPrice.toString(),
    steps: assessment.steps.map(({ step, done, gas, estimated }) => ({ label: step.label, address: step.target, done, gas: gas.toString(), gasEstimated: estimated, roles: step.roles })),
    contracts: Object.fromEntries(plan.contracts.map((contract) => [contract.key, contract.address])),
    toSend: assessment.toSend,
    costWei: assessment.costWei.toString(),
  };
  if (!values.json) {
    printTable(console.log, planRows(assessment, chain));
    console.log(`${assessment.toSend} transaction(s) to send, ~${assessment.gas.toLocaleString("en-US")} gas, ~${formatEther(assessment.costWei)} ${chain.nativeCurrency.symbol} at ${formatEther(assessment.gasPrice, "gwei")} gwei`);
  }
  if (!values.execute) {
    if (values.json) console.log(JSON.stringify(summary, null, 2));
    else console.log("nothing sent: run again with --execute (and a signer) to deploy");
    return 0;
  }

  const balance = await client.getBalance({ address: deployer });
  if (balance < assessment.costWei) {
    throw new DeployRefusal(`the deployer ${deployer} holds ${formatEther(balance)} ${chain.nativeCurrency.symbol}, the plan costs ~${formatEther(assessment.costWei)}: fund it, then run again (nothing was sent)`);
  }
  const wallet = createWalletClient({ account: account!, chain: viemChain(chain, rpcUrl), transport: http(rpcUrl, { retryCount: 1, timeout: 30_000 }) });
  const { sent } = await executePlan(client, wallet, plan, { progress, pollMs: Math.min(1000, chain.blockTimeSeconds * 250) });
  const codeProblems = await verifyDeployedCode(client, plan);
  if (codeProblems.length > 0) throw new Error(`deployed code does not match the build:\n${codeProblems.join("\n")}\n(rebuild with the committed compiler settings, or this chain holds another build at these addresses)`);
  const out = resolve(values.out ?? `deployments/${chain.name}`);
  const previousFile = manifestPath(out, chain.chainId);
  let previous: DeploymentManifest | undefined;
  try {
    previous = existsSync(previousFile) ? readManifest(previousFile) : undefined;
  } catch {
    // An unreadable earlier manifest is rewritten below.
  }
  const manifest = await deployedManifest(client, plan, previous, progress);
  const outputs = writeDeployOutputs(out, plan, manifest);
  if (values.json) {
    console.log(JSON.stringify({ ...summary, sent, manifestFile: outputs.manifestFile, standardJsonDir: outputs.standardJsonDir, deployBlock: manifest.deployBlock }, null, 2));
  } else {
    console.log(`${sent.length} transaction(s) sent; deployed code matches the build`);
    printTable(console.log, [["contract", "address"], ...plan.contracts.map((contract) => [contract.artifact.contractName, contract.address])]);
    console.log(`manifest: ${outputs.manifestFile} (deploy block ${manifest.deployBlock}); standard-JSON inputs: ${outputs.standardJsonDir}`);
    if (plan.admin !== undefined) console.log(`next: ${plan.admin} calls acceptAdmin() on the registry ${manifest.contracts.routerRegistry} to become its administrator`);
  }
  return 0;
}

main(process.argv.slice(2), process.env).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    const refusal = error instanceof DeployRefusal || error instanceof ChainFileError || error instanceof SignerChoiceError || error instanceof KeystoreNotFoundError || error instanceof KeystorePasswordError || error instanceof KeystoreFormatError || error instanceof KeystoreKdfError;
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = refusal ? 2 : 1;
  },
);
