import { SdkError } from "./base";

/** The registry returned data that is not the ABI words the spec promises. */
export class RegistryResponseError extends SdkError {
  override name = "RegistryResponseError";
  constructor(read: string, data: string) {
    super(`registry ${read} returned ${data.length <= 2 ? "no data" : `malformed data (${data})`}`, {
      details: "Check that the address is the chain's router registry and that the RPC URL points at the right chain.",
    });
  }
}

/** A feature id that the registry cannot hold (ids are uint128). */
export class FeatureIdRangeError extends SdkError {
  override name = "FeatureIdRangeError";
  constructor(featureId: bigint) {
    super(`feature id ${featureId} is out of range`, { details: "Feature ids are integers from 0 to 2^128-1." });
  }
}
