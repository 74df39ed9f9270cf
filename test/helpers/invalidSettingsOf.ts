import { expect } from "chai";
import { InvalidSettingsError } from "../../sdk/config/settingDeclaration";

/** The InvalidSettingsError a settings loader throws for `env`; fails the test when it throws anything else or nothing. */
export function invalidSettingsOf(load: (env: NodeJS.ProcessEnv) => unknown, env: NodeJS.ProcessEnv): InvalidSettingsError {
  let thrown: unknown;
  try {
    load(env);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).to.be.instanceOf(InvalidSettingsError);
  return thrown as InvalidSettingsError;
}
