import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createPublicClient, http } from "viem";
import { isNoAnswer, isNoAnswerWithoutExecution } from "../../sdk/rpc/noAnswer";
import { sendRaw } from "../../relayer/broadcast/broadcaster";

type Answer = { status?: number; error?: { code: number; message: string; data?: string } } | "silent";

/** A JSON-RPC endpoint on loopback that gives every request the same answer, or none (`silent`). */
async function endpoint(answer: Answer): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      if (answer === "silent") return;
      const { id } = JSON.parse(body) as { id: number };
      // A rate limiter or a proxy in front of the node answers in plain text, not JSON-RPC.
      if (answer.status !== undefined) return void response.writeHead(answer.status, { "content-type": "text/plain" }).end("Too Many Requests or Bad Gateway");
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ jsonrpc: "2.0", id, error: answer.error ?? { code: -32000, message: "unused" } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** What viem throws for one eth_call against `answer` (no retries, a short timeout). */
async function failureOf(answer: Answer): Promise<unknown> {
  const { url, server } = await endpoint(answer);
  try {
    const client = createPublicClient({ transport: http(url, { retryCount: 0, timeout: 300 }) });
    return await client.call({ to: "0x0000000000000000000000000000000000000001", data: "0x" }).then(
      () => expect.fail("the endpoint answered with a result"),
      (error: unknown) => error,
    );
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe("isNoAnswer: the one classifier of 'the node gave no answer' (read failover and relayer retries)", function () {
  this.timeout(20_000);

  it("no answer: a timeout, a refused connection, HTTP 429 and 502 from a proxy, a limit (-32005), an internal error without revert data (-32603)", async () => {
    expect(isNoAnswer(await failureOf("silent")), "timeout").to.equal(true);
    expect(isNoAnswer(await failureOf({ status: 429 })), "429").to.equal(true);
    expect(isNoAnswer(await failureOf({ status: 502 })), "502").to.equal(true);
    expect(isNoAnswer(await failureOf({ error: { code: -32005, message: "limit exceeded" } })), "-32005").to.equal(true);
    expect(isNoAnswer(await failureOf({ error: { code: -32603, message: "internal error" } })), "-32603").to.equal(true);
    const closed = await endpoint({});
    await new Promise((resolve) => closed.server.close(resolve));
    const refused = await createPublicClient({ transport: http(closed.url, { retryCount: 0 }) }).getBlockNumber().catch((error: unknown) => error);
    expect(isNoAnswer(refused), "connection refused").to.equal(true);
  });

  it("an answer: a revert as -32603 with revert data (Hardhat's way), a revert as code 3, a refusal that mentions the network", async () => {
    expect(isNoAnswer(await failureOf({ error: { code: -32603, message: "Error: VM Exception while processing transaction: reverted with custom error", data: "0x08c379a0" } })), "-32603 with data").to.equal(false);
    expect(isNoAnswer(await failureOf({ error: { code: -32603, message: "execution reverted" } })), "-32603 saying reverted").to.equal(false);
    expect(isNoAnswer(await failureOf({ error: { code: 3, message: "execution reverted", data: "0x" } })), "code 3").to.equal(false);
    expect(isNoAnswer(await failureOf({ error: { code: -32000, message: "invalid sender: wrong network id" } })), "an answer that says network").to.equal(false);
  });

  it("an error that is not viem's is judged by its words: a bare fetch or socket failure is no answer, anything else is not", () => {
    expect(isNoAnswer(new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:1") }))).to.equal(true);
    expect(isNoAnswer(new Error("socket hang up"))).to.equal(true);
    expect(isNoAnswer(new Error("nonce too low"))).to.equal(false);
    expect(isNoAnswer(undefined)).to.equal(false);
  });

  it("a send or a lookup runs no code, so any internal error (-32603, revert data or not) is the node's trouble: sendRaw keeps the transaction open, never refused", async () => {
    const internal = { error: { code: -32603, message: "internal error", data: "0x08c379a0" } };
    expect(isNoAnswerWithoutExecution(await failureOf(internal)), "-32603 with data").to.equal(true);
    expect(isNoAnswerWithoutExecution(await failureOf({ error: { code: -32000, message: "nonce too low" } })), "a refusal").to.equal(false);
    const { url, server } = await endpoint(internal);
    try {
      const client = createPublicClient({ transport: http(url, { retryCount: 0, timeout: 300 }) });
      expect((await sendRaw(client, "0x02f86c")).outcome).to.equal("transient");
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
