import { z } from "zod";
import { positiveInt } from "../../../sdk/config/positiveInt";
import { addressField } from "../../../sdk/wire/addressField";
import { gaslessStanding, integratorGasBudget } from "../gaslessStanding";
import { parseInternal, type InternalRoute } from "../internalRequest";

const standingQuery = z.strictObject({
  taker: addressField,
  integrator_id: positiveInt,
});
const budgetQuery = standingQuery.pick({ integrator_id: true });

/** `GET /internal/gasless-standing`, read by the API before each gasless quote (it caches answers briefly): the taker's and the integrator's gas budgets, and whether either is spent. */
export const getGaslessStandingRoute: InternalRoute = {
  method: "get",
  path: "/internal/gasless-standing",
  handler:
    ({ context }) =>
    async (req, res) => {
      const query = parseInternal(standingQuery, req.query, "query");
      res.json(await gaslessStanding(context.store, context.config.gasBudgets, { taker: query.taker, integratorId: query.integrator_id }, context.now()));
    },
};

/** `GET /internal/gas-budget`, read by the API for an integrator's profile and key responses: its gas budget and its takers'. */
export const getGasBudgetRoute: InternalRoute = {
  method: "get",
  path: "/internal/gas-budget",
  handler:
    ({ context }) =>
    async (req, res) => {
      const query = parseInternal(budgetQuery, req.query, "query");
      res.json(await integratorGasBudget(context.store, context.config.gasBudgets, query.integrator_id, context.now()));
    },
};
