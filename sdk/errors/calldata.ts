import { SdkError } from "./base";

/** A permit signature that is not exactly 65 bytes. */
export class SignatureLengthError extends SdkError {
  override name = "SignatureLengthError";
  readonly actualBytes: number | undefined;
  constructor(signature: string) {
    const body = signature.startsWith("0x") || signature.startsWith("0X") ? signature.slice(2) : signature;
    const isHex = /^[0-9a-fA-F]*$/.test(body) && body.length % 2 === 0;
    const actual = isHex ? body.length / 2 : undefined;
    super(
      isHex
        ? `signature is ${actual} bytes (${body.length} hex characters); expected 65 bytes (130 hex characters)`
        : "signature is not a hex string; expected 65 bytes as 130 hex characters",
      {
        details:
          "Sign the quote's permit2 typed data with eth_signTypedData_v4 and pass the (r, s, v) signature as is. " +
          "Compact 64-byte (EIP-2098) signatures are not accepted.",
      },
    );
    this.actualBytes = actual;
  }
}

/** The signature offset does not point at a 65-byte placeholder inside the calldata. */
export class SignatureOffsetError extends SdkError {
  override name = "SignatureOffsetError";
  constructor(offset: number, dataBytes: number) {
    super(`signature offset ${offset} does not point at a 65-byte signature argument in ${dataBytes} bytes of calldata`, {
      details: "Use tx.signature_offset from the same quote as tx.data, unmodified.",
    });
  }
}

/** A route action that cannot be encoded or decoded. */
export class RouteActionError extends SdkError {
  override name = "RouteActionError";
  constructor(message: string) {
    super(message, { details: "Route actions come from the quote; do not build or alter them by hand." });
  }
}

/** A gasless batch with no orders or more than the router's MAX_BATCH_ORDERS. */
export class BatchSizeError extends SdkError {
  override name = "BatchSizeError";
  readonly count: number;
  constructor(count: number, max: number) {
    super(`a gasless batch holds ${count} orders; it must hold 1 to ${max}`, {
      details: "Split the orders into several batches, or send a single order with swapGasless.",
    });
    this.count = count;
  }
}

/** A batch's gas caps that are not one per order, each at most the router's BATCH_ORDER_GAS. */
export class BatchGasLimitsError extends SdkError {
  override name = "BatchGasLimitsError";
  constructor(orders: number, gasLimits: readonly bigint[], max: bigint) {
    const above = gasLimits.findIndex((limit) => limit < 0n || limit > max);
    super(
      gasLimits.length !== orders
        ? `a gasless batch of ${orders} orders has ${gasLimits.length} gas caps; it needs one per order`
        : `gas cap ${gasLimits[above]} of order ${above} is outside 0 to ${max} (the router's BATCH_ORDER_GAS)`,
      { details: "Give each order its share of its own single-swap gas limit (batchOrderGasCap); a route that needs more goes alone with swapGasless." },
    );
  }
}

/** Calldata that is not a `swapGasless` call, so no batch order can be read from it. */
export class GaslessCalldataError extends SdkError {
  override name = "GaslessCalldataError";
  constructor(reason: string) {
    super(`not swapGasless calldata: ${reason}`, { details: "Pass the signed tx.data of a gasless quote (the calldata the relayer received)." });
  }
}

/** Calldata that is not one of the router calls a quote carries, or not in canonical ABI encoding. */
export class SwapCalldataError extends SdkError {
  override name = "SwapCalldataError";
  constructor(problem: string, cause?: unknown) {
    super(problem, { details: "A quote's tx.data is built by the API and must reach the wallet unmodified; re-quote.", cause });
  }
}
