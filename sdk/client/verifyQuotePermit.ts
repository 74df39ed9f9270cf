import { hashRouteActions } from "../calldata/routeActions";
import type { QuoteCall } from "../calldata/decodeQuoteOrder";
import type { ExactOutputQuoteCall } from "../calldata/decodeQuoteOrder";

import { PERMIT2_ADDRESS } from "../chain/permit2";
import { exactOutputPermitTypes, gaslessExactOutputPermitTypes, gaslessPermitTypes, swapPermitTypes, withDomainType } from "../typedData/permit2Witness";
import type { Address } from "viem";
import type { QuoteJson } from "../wire/quoteJson";
import type { QuoteFieldCheck } from "./quoteFieldCheck";

type PermitCall = Extract<QuoteCall | ExactOutputQuoteCall, { kind: "permit" | "gasless" }>;

const domainType = withDomainType({}).EIP712Domain;

function typesText(types: Record<string, readonly { name: string; type: string }[]>): string {
  return JSON.stringify(Object.keys(types).sort().map((name) => [name, types[name]!.map((field) => `${field.type} ${field.name}`)]));
}

/**
 * Checks that the Permit2 typed data the taker is asked to sign is exactly the permit `tx.data`
 * spends: the types and domain of a PermitWitnessTransferFrom on Permit2 for this chain, the token and
 * amount the order sells (plus the relayer fee when gasless), the router as spender, the calldata's
 * nonce, the order's deadline, and a witness equal to the order (actionsHash = keccak256(actions)).
 */
export function verifyQuotePermit(check: QuoteFieldCheck, quote: QuoteJson, call: PermitCall, chainId: number, permit2Address: Address = PERMIT2_ADDRESS): void {
  const permit2 = quote.permit2!;
  const gasless = call.kind === "gasless";
  const { order } = call;
  // The exact-output witnesses bind the output and the maximum input instead of a minimum output.
  const exactOutput = "maxSellAmount" in order;
  const { EIP712Domain: servedDomainType, ...types } = permit2.types;
  const expectedTypes = exactOutput ? (gasless ? gaslessExactOutputPermitTypes : exactOutputPermitTypes) : gasless ? gaslessPermitTypes : swapPermitTypes;
  const typesSource = `${gasless ? "the gasless router's" : "the taker router's"} ${exactOutput ? "exact-output " : ""}witness types`;
  check.same("permit2.types", typesText(types), typesText(expectedTypes), typesSource);
  if (servedDomainType !== undefined) check.same("permit2.types.EIP712Domain", typesText({ EIP712Domain: servedDomainType }), typesText({ EIP712Domain: domainType }), "Permit2's domain");
  check.same("permit2.primaryType", permit2.primaryType, "PermitWitnessTransferFrom", "Permit2's witness transfer");
  check.same("permit2.domain.name", permit2.domain.name, "Permit2", "Permit2's domain");
  check.same("permit2.domain.chainId", permit2.domain.chainId, chainId, "the chain quoted for");
  check.address("permit2.domain.verifyingContract", permit2.domain.verifyingContract, permit2Address, permit2Address === PERMIT2_ADDRESS ? "the canonical Permit2" : "the chain's Permit2 (contracts.permit2)");

  const { message } = permit2;
  const source = (name: string) => `tx.data.${name}`;
  check.address("permit2.message.permitted.token", message.permitted.token, order.sellToken, source("order.sellToken"));
  const [permitted, permittedName] = "maxSellAmount" in order ? [order.maxSellAmount, "order.maxSellAmount"] : [order.sellAmount, "order.sellAmount"];
  if (call.kind === "gasless") check.amount("permit2.message.permitted.amount", message.permitted.amount, permitted + call.relayerFee, `tx.data.${permittedName} + tx.data.relayerFee`);
  else check.amount("permit2.message.permitted.amount", message.permitted.amount, permitted, source(permittedName));
  check.address("permit2.message.spender", message.spender, quote.tx.to, "tx.to");
  check.amount("permit2.message.nonce", message.nonce, call.nonce, source("nonce"));
  check.amount("permit2.message.deadline", message.deadline, order.deadline, source("order.deadline"));
  // The copies at the top are not signed, but a client may read them: they must not disagree.
  if (permit2.nonce !== undefined) check.amount("permit2.nonce", permit2.nonce, call.nonce, source("nonce"));
  if (permit2.deadline !== undefined) check.amount("permit2.deadline", permit2.deadline, order.deadline, source("order.deadline"));

  const witness = message.witness;
  const names = Object.keys(witness).sort().join(", ");
  const typeLists: readonly (readonly { name: string; type: string }[])[] = Object.values(expectedTypes);
  const witnessType = typeLists.find((fields) => fields.some((field) => field.name === "actionsHash"))!;
  const expectedNames = witnessType.map((field) => field.name).sort().join(", ");
  check.same("permit2.message.witness", names, expectedNames, "the witness type's fields");
  check.address("permit2.message.witness.recipient", witness.recipient, order.recipient, source("order.recipient"));
  check.address("permit2.message.witness.buyToken", witness.buyToken, order.buyToken, source("order.buyToken"));
  if ("maxSellAmount" in order) {
    check.amount("permit2.message.witness.buyAmount", witness.buyAmount, order.buyAmount, source("order.buyAmount"));
    check.amount("permit2.message.witness.maxSellAmount", witness.maxSellAmount, order.maxSellAmount, source("order.maxSellAmount"));
  } else {
    check.amount("permit2.message.witness.minBuyAmount", witness.minBuyAmount, order.minBuyAmount, source("order.minBuyAmount"));
  }
  check.amount("permit2.message.witness.deadline", witness.deadline, order.deadline, source("order.deadline"));
  check.hex("permit2.message.witness.quoteId", witness.quoteId, order.quoteId, source("order.quoteId"));
  check.hex("permit2.message.witness.actionsHash", witness.actionsHash, hashRouteActions(order.actions), "keccak256(tx.data.order.actions)");
  if (call.kind === "gasless") {
    check.amount("permit2.message.witness.relayerFee", witness.relayerFee, call.relayerFee, source("relayerFee"));
    check.address("permit2.message.witness.relayerFeeRecipient", witness.relayerFeeRecipient, call.relayerFeeRecipient, source("relayerFeeRecipient"));
  }
}
