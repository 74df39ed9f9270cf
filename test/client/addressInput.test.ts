import { expect } from "chai";
import fc from "fast-check";
import { JsonRpcProvider, Wallet } from "ethers";
import { getAddress, toHex } from "viem";
import { AddressInputError, checkedAddress, createTradingClient, fromEthersSigner, type FetchFunction } from "../../sdk";
import { fuzzRuns } from "../helpers/fuzzRuns";
import { fundedTaker } from "../fixtures/fundedTaker";
import { sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";

const addressBytes = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => toHex(bytes));

/** The same address with the case of one letter flipped, when that breaks its EIP-55 checksum. */
function brokenChecksum(checksummed: string): string | undefined {
  const index = [...checksummed].findIndex((character, position) => position > 1 && /[a-fA-F]/.test(character));
  if (index < 0) return undefined;
  const character = checksummed[index]!;
  const flipped = `${checksummed.slice(0, index)}${character === character.toUpperCase() ? character.toLowerCase() : character.toUpperCase()}${checksummed.slice(index + 1)}`;
  // Flipping to all-lowercase (or all-uppercase) hex is a valid address without a checksum.
  return flipped.slice(2) === flipped.slice(2).toLowerCase() || flipped.slice(2) === flipped.slice(2).toUpperCase() ? undefined : flipped;
}

describe("addresses at the client's edge: a plain string (ethers' wallet.address) is checked, never cast", function () {
  this.timeout(120_000);

  it("accepts any address lowercase or checksummed and returns it checksummed; refuses a broken checksum naming the field (property)", () => {
    fc.assert(
      fc.property(addressBytes, (lower) => {
        const checksummed = getAddress(lower);
        expect(checkedAddress("taker", lower)).to.equal(checksummed);
        expect(checkedAddress("taker", checksummed)).to.equal(checksummed);
        const broken = brokenChecksum(checksummed);
        if (broken !== undefined) expect(() => checkedAddress("recipient", broken)).to.throw(AddressInputError, /^recipient is not an address/);
      }),
      fuzzRuns(200),
    );
  });

  it("refuses what is not an address at all, naming the field and showing the value", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constant("0x"), addressBytes.map((address) => `${address}00`), addressBytes.map((address) => address.slice(2))), (text) => {
        fc.pre(!/^0x[0-9a-fA-F]{40}$/.test(text));
        let error: unknown;
        try {
          checkedAddress("taker", text);
        } catch (caught) {
          error = caught;
        }
        expect(error).to.be.instanceOf(AddressInputError);
        expect(error).to.include({ field: "taker", value: text });
      }),
      fuzzRuns(200),
    );
    for (const value of [undefined, null, 42, {}]) expect(() => checkedAddress("taker", value)).to.throw(AddressInputError);
  });

  it("createTradingClient refuses a bad contract or fee recipient address naming its option", () => {
    const refusal = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return error as AddressInputError;
      }
      throw new Error("not refused");
    };
    expect(refusal(() => createTradingClient({ apiUrl: "http://127.0.0.1:9", contracts: { routerRegistry: "0x123" } })).field).to.equal("contracts.routerRegistry");
    expect(refusal(() => createTradingClient({ apiUrl: "http://127.0.0.1:9", contracts: { routerRegistry: getAddress(`0x${"11".repeat(20)}`), allowanceHolder: "holder" } })).field).to.equal("contracts.allowanceHolder");
    expect(refusal(() => createTradingClient({ apiUrl: "http://127.0.0.1:9", integratorFeeRecipient: "0xnot" })).field).to.equal("integratorFeeRecipient");
  });

  it("getQuote and getPrice refuse a bad taker or recipient before any request", async () => {
    let requests = 0;
    const fetch: FetchFunction = (input, init) => {
      requests++;
      return globalThis.fetch(input, init);
    };
    const client = createTradingClient({ apiUrl: "http://127.0.0.1:9", apiKey: "k", fetch });
    const valid = `0x${"ab".repeat(20)}`;
    const taker = await client.getQuote({ sellToken: "USDC", buyToken: "WETH", sellAmount: 1n, taker: "0xabc" }).catch((error: unknown) => error);
    expect(taker).to.be.instanceOf(AddressInputError).and.include({ field: "taker" });
    const recipient = await client.getPrice({ sellToken: "USDC", buyToken: "WETH", sellAmount: 1n, taker: valid, recipient: "me" }).catch((error: unknown) => error);
    expect(recipient).to.be.instanceOf(AddressInputError).and.include({ field: "recipient" });
    expect(requests).to.equal(0);
    client.close();
  });

  describe("against npm start's devnet", () => {
    let devnet: SharedDevnet;
    let provider: JsonRpcProvider;
    before(async function () {
      this.timeout(300_000);
      devnet = await sharedDevnet();
      provider = new JsonRpcProvider(devnet.rpcUrl, undefined, { staticNetwork: true });
    });
    after(() => provider?.destroy());

    it("an ethers user quotes and swaps with `taker: signer.address` and string contract addresses, no cast; the quote answers the checksummed taker", async () => {
      const { apiKey } = await devnet.onboardedClient();
      const funded = await fundedTaker(devnet, { USDC: 1_000_000_000n });
      const signer = new Wallet(funded.privateKey, provider);
      // What an ethers user has: plain strings, here all lowercase.
      const registry: string = devnet.manifest.contracts.routerRegistry.toLowerCase();
      const takerAddress: string = signer.address.toLowerCase();
      const client = createTradingClient({ apiUrl: devnet.apiUrl, apiKey, contracts: { routerRegistry: registry } });
      try {
        const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 200_000_000n, taker: takerAddress, recipient: signer.address });
        expect(quote.taker).to.equal(getAddress(takerAddress));
        const { receipt } = await client.executeQuote(quote, await fromEthersSigner(signer));
        expect(receipt.status).to.equal("success");
        // An explicit expectation takes strings too, checked the same way.
        const refused = await client.verifyQuote(quote, { taker: "0xnope" }).catch((error: unknown) => error);
        expect(refused).to.be.instanceOf(AddressInputError).and.include({ field: "expected.taker" });
      } finally {
        client.close();
      }
    });
  });
});
