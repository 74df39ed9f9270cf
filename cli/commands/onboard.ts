import type { Command } from "commander";
import type { IntegratorProfiles } from "../../sdk";
import { clientOf, walletOf } from "../cliConfig";
import { contextOf } from "../cliContext";
import { table } from "../cliOutput";
import { CliError, ExitCode } from "../exitCodes";

function positive(name: string, text: string): number {
  if (!/^[0-9]+$/.test(text)) throw new CliError(`${name} must be a positive integer, got ${text}`, ExitCode.usage);
  return Number(text);
}

/** `onboard profile` for people: one table of the wallet's profiles, one of their keys (masked). */
export function profileTables(profiles: IntegratorProfiles): string {
  if (profiles.integrators.length === 0) return `no profile is owned by ${profiles.owner_wallet}: apply with \`onboard apply\``;
  const integrators = table(
    ["integrator_id", "slug", "status", "name", "max_fee_bps", "fee_recipient"],
    profiles.integrators.map((profile) => [String(profile.integrator_id), profile.slug, profile.status, profile.display_name, String(profile.max_fee_bps), profile.fee_recipient]),
  );
  const keys = profiles.integrators.flatMap((profile) =>
    profile.api_keys.map((key) => [String(profile.integrator_id), String(key.key_id), key.label, key.masked_key, key.scopes.join(" "), key.revoked_at === null ? "active" : `revoked ${key.revoked_at}`]),
  );
  return `${integrators}\n\n${keys.length === 0 ? "no API keys" : table(["integrator_id", "key_id", "label", "key", "scopes", "status"], keys)}`;
}

export function registerOnboard(program: Command): void {
  const onboard = program.command("onboard").description("integrator onboarding, signed by PRIVATE_KEY's wallet (the owner and fee recipient)");
  onboard
    .command("apply")
    .description("apply for a profile and, when it is active, create an API key (printed once: store it)")
    .requiredOption("--name <display_name>", "partner or app name")
    .requiredOption("--slug <slug>", "3-64 lowercase letters, digits and hyphens")
    .option("--max-fee-bps <bps>", "requested fee cap in basis points", "0")
    .option("--email <address>", "contact email")
    .option("--telegram <handle>", "telegram handle")
    .option("--url <url>", "app URL")
    .option("--label <label>", "label of the API key", "default")
    .action(async (options: { name: string; slug: string; maxFeeBps: string; email?: string; telegram?: string; url?: string; label: string }, command: Command) => {
      const { config, out } = contextOf(command);
      const client = clientOf(config, (message) => out.progress(message));
      out.progress(`applying as ${options.slug}…`);
      const result = await client.onboard(walletOf(config), {
        chainId: config.chainId,
        displayName: options.name,
        slug: options.slug,
        contactEmail: options.email,
        telegramHandle: options.telegram,
        appUrl: options.url,
        requestedMaxFeeBps: positive("--max-fee-bps", options.maxFeeBps),
        keyLabel: options.label,
      });
      if (result.apiKey === undefined) out.progress(`profile ${result.application.slug} is ${result.application.status}: run \`onboard key\` once the operator approved it`);
      else out.progress("API key created: it is shown once; export it as SWAP_API_KEY");
      out.result(result, () =>
        table(
          ["integrator_id", "slug", "status", "api_key"],
          [[String(result.application.integrator_id), result.application.slug, result.application.status, result.apiKey?.api_key ?? "-"]],
        ),
      );
    });
  onboard
    .command("key")
    .description("create another API key for an active profile")
    .requiredOption("--integrator-id <id>", "integrator id from `onboard apply`")
    .option("--label <label>", "label of the key", "default")
    .action(async (options: { integratorId: string; label: string }, command: Command) => {
      const { config, out } = contextOf(command);
      const key = await clientOf(config, (message) => out.progress(message)).createApiKey(walletOf(config), positive("--integrator-id", options.integratorId), options.label, config.chainId);
      out.result(key, () => table(["key_id", "api_key", "scopes"], [[String(key.key_id), key.api_key, key.scopes.join(" ")]]));
    });
  onboard
    .command("profile")
    .description("show the wallet's profiles and masked keys")
    .action(async (_options: object, command: Command) => {
      const { config, out } = contextOf(command);
      const profiles = await clientOf(config, (message) => out.progress(message)).viewProfile(walletOf(config), config.chainId);
      out.result(profiles, () => profileTables(profiles));
    });
  onboard
    .command("webhook")
    .description("set, replace (a new secret) or clear the integrator's webhook for relay status changes; prints the signing secret once")
    .requiredOption("--integrator-id <id>", "integrator id")
    .option("--url <url>", "the https endpoint deliveries are POSTed to (http to 127.0.0.1 on the devnet)")
    .option("--clear", "remove the webhook; its pending deliveries are dropped")
    .action(async (options: { integratorId: string; url?: string; clear?: boolean }, command: Command) => {
      const { config, out } = contextOf(command);
      if ((options.url === undefined) === (options.clear !== true)) throw new CliError("pass exactly one of --url <url> and --clear", ExitCode.usage);
      const registered = await clientOf(config, (message) => out.progress(message)).setWebhook(walletOf(config), positive("--integrator-id", options.integratorId), options.url ?? null, config.chainId);
      if (registered.secret !== null) out.progress("webhook set: the signing secret is shown once; store it (e.g. as WEBHOOK_SECRET) to verify deliveries with verifyRelayWebhook");
      else out.progress("webhook cleared");
      out.result(registered, () =>
        table(["integrator_id", "url", "secret", "signature_scheme"], [[String(registered.integrator_id), registered.url ?? "-", registered.secret ?? "-", registered.signature_scheme]]),
      );
    });
  onboard
    .command("revoke")
    .description("revoke an API key")
    .requiredOption("--integrator-id <id>", "integrator id")
    .requiredOption("--key-id <id>", "key id")
    .action(async (options: { integratorId: string; keyId: string }, command: Command) => {
      const { config, out } = contextOf(command);
      const revoked = await clientOf(config, (message) => out.progress(message)).revokeApiKey(walletOf(config), positive("--integrator-id", options.integratorId), positive("--key-id", options.keyId));
      out.result(revoked, () => `key ${revoked.key_id} revoked at ${revoked.revoked_at}`);
    });
}
