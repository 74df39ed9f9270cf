import { z } from "zod";

/** An http:// or https:// URL (JSON-RPC endpoints, the relayers' internal endpoints). */
export const httpUrl = z.url({ protocol: /^https?$/ });
