import { expect } from "chai";
import { newWallet, startOnboardingApi, type OnboardingApi } from "../fixtures/onboardingApi";

/**
 * Audit finding L-3: behind a load balancer every request arrives from the balancer's address. With
 * `API_TRUST_PROXY` naming the balancer (here the test client on loopback plays it), the per-IP
 * buckets key on the client that X-Forwarded-For names; without it, the header is ignored.
 */
describe("per-IP limits behind a proxy: API_TRUST_PROXY (L-3)", () => {
  let api: OnboardingApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  /** Nonce requests from the client X-Forwarded-For names, one wallet each (the per-wallet limit stays out of the way). */
  async function nonceStatuses(client: string, count: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let index = 0; index < count; index++) {
      const response = await api!.request("POST", "/integrators/nonce", {
        json: { wallet: newWallet().address, action: "view_integrator_profile" },
        headers: { "x-forwarded-for": client },
      });
      statuses.push(response.status);
    }
    return statuses;
  }

  for (const trustProxy of [1, ["loopback"], ["127.0.0.1/32", "10.0.0.0/8"]] as const) {
    it(`gives two clients that differ only in X-Forwarded-For separate buckets (trust proxy ${JSON.stringify(trustProxy)})`, async () => {
      api = await startOnboardingApi({ onboardingRateLimitPerMinute: 3, trustProxy });
      expect(await nonceStatuses("203.0.113.7", 4)).to.deep.equal([200, 200, 200, 429]);
      expect(await nonceStatuses("198.51.100.9", 3)).to.deep.equal([200, 200, 200]);
    });
  }

  it("ignores X-Forwarded-For by default, and from a hop it does not trust: every such client shares the socket's bucket", async () => {
    for (const trustProxy of [false, ["10.0.0.1"]] as const) {
      api = await startOnboardingApi({ onboardingRateLimitPerMinute: 3, trustProxy });
      expect(await nonceStatuses("203.0.113.7", 3)).to.deep.equal([200, 200, 200]);
      expect(await nonceStatuses("198.51.100.9", 1), JSON.stringify(trustProxy)).to.deep.equal([429]);
      await api.close();
      api = undefined;
    }
  });
});
