import { z } from "zod";

/** A PostgreSQL connection URL (DATABASE_URL, RELAYER_DATABASE_URL): `postgres://` or `postgresql://`. */
export const postgresUrl = z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// URL" });
