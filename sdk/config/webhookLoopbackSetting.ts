import { DEVNET_CHAIN_ID } from "../chain/devnet";
import { booleanFlag } from "./booleanFlag";

/**
 * Whether webhooks may go to a loopback host (127.0.0.0/8, ::1, localhost) over plain http or https,
 * declared once for the API (which registers webhook URLs) and the relayer (which delivers to them):
 * `WEBHOOK_ALLOW_LOOPBACK_HTTP`, default true on the devnet (CHAIN_ID 4663), false elsewhere, where
 * only https to a public host is allowed.
 */
export const webhookLoopbackSettings = {
  WEBHOOK_ALLOW_LOOPBACK_HTTP: booleanFlag.optional(),
} as const;

/** What the setting means, for both services that declare it. */
export const webhookLoopbackSettingDocs = {
  WEBHOOK_ALLOW_LOOPBACK_HTTP:
    "A webhook URL may be plain http on a loopback host (127.0.0.0/8, ::1, localhost), and https on one too; otherwise only https to a public host. Default true on the devnet (CHAIN_ID 4663), false elsewhere.",
} as const;

/** The setting resolved against the chain: unset, it follows whether this is the devnet. */
export function webhookLoopbackAllowed(values: { WEBHOOK_ALLOW_LOOPBACK_HTTP?: boolean | undefined; CHAIN_ID: number }): boolean {
  return values.WEBHOOK_ALLOW_LOOPBACK_HTTP ?? values.CHAIN_ID === DEVNET_CHAIN_ID;
}
