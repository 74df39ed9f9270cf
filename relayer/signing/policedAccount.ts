import { keccak256, serializeTransaction, type LocalAccount, type TransactionSerializable } from "viem";
import { toAccount } from "viem/accounts";
import type { KeyBackend } from "./keyBackend";
import type { SigningPolicy } from "./signingPolicy";
import type { SignerSpend } from "./signerSpend";
import type { SigningHealth } from "./signingHealth";

/**
 * The account the relayer signs transactions with: viem's account interface over a key backend, with
 * the signing policy in front of every signature. Messages and typed data are never signed: the
 * relayer has no use for them, and a signed permit would move funds no transaction rule sees.
 */
export function policedAccount(backend: KeyBackend, policy: SigningPolicy, state: { nextNonce(): number; spend: SignerSpend; health?: SigningHealth }): LocalAccount {
  const refuse = async (): Promise<never> => {
    throw new Error(`the relayer's signer ${backend.address} signs transactions only`);
  };
  return toAccount({
    address: backend.address,
    signMessage: refuse,
    signTypedData: refuse,
    async signTransaction(transaction, options) {
      policy.authorize(backend.address, transaction as TransactionSerializable, { nextNonce: state.nextNonce(), spend: state.spend });
      const serializer = options?.serializer ?? serializeTransaction;
      const digest = keccak256(await serializer(transaction));
      // After the policy: a refusal says nothing about the backend; what the backend answers does.
      const signature = state.health === undefined ? await backend.signDigest(digest) : await state.health.track(() => backend.signDigest(digest));
      return serializer(transaction, signature);
    },
  });
}
