import type { BudgetRefusalJson } from "../relay/budgetRefusal";
import { ApiError } from "./apiError";

/** A budget refusal (the one wire shape, the relayer's or the API's own) as the 403 both services answer. */
export function budgetRefusalError(refusal: BudgetRefusalJson): ApiError {
  const { error, code, ...body } = refusal;
  return new ApiError(code, error, { body });
}
