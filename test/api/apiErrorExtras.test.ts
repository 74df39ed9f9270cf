import { expect } from "chai";
import { ApiError } from "../../sdk/server/apiError";
import type { Route } from "../../api/routes/route";
import { startOnboardingApi } from "../fixtures/onboardingApi";

const throwing: Route = {
  method: "get",
  path: "/test/limited",
  handlers: () => [
    () => {
      throw new ApiError("rate_limited", "bucket quote_probe is empty", {
        body: { bucket: "quote_probe", code: "overridden?", error: "overridden?" },
        headers: { "Retry-After": "7" },
      });
    },
  ],
};

describe("API error extras", () => {
  it("add body fields and headers to the error response, never replacing error and code", async () => {
    const api = await startOnboardingApi({}, [throwing]);
    try {
      const response = await api.request("GET", "/test/limited");
      expect(response.status).to.equal(429);
      expect(response.body).to.deep.equal({ bucket: "quote_probe", error: "bucket quote_probe is empty", code: "rate_limited" });
      expect(response.headers.get("retry-after")).to.equal("7");
    } finally {
      await api.close();
    }
  });
});
