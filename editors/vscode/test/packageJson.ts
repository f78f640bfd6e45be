/** package.json of the extension, for the tests (compiled to out/test/, two levels down). */
import { readFileSync } from "node:fs";
import * as path from "node:path";

export const EXTENSION_ROOT = path.resolve(__dirname, "..", "..");

export interface ConfigProperty {
  type: string | string[];
  default: unknown;
  enum?: unknown[];
}

export interface PackageJson {
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    configuration: { properties: Record<string, ConfigProperty> };
  };
  capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
  activationEvents: string[];
}

export const packageJson: PackageJson = JSON.parse(readFileSync(path.join(EXTENSION_ROOT, "package.json"), "utf8"));

/** `offload-ls.<key>` -> its default, from `contributes.configuration`. */
export function defaults(): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [name, prop] of Object.entries(packageJson.contributes.configuration.properties)) {
    out.set(name.replace(/^offload-ls\./, ""), prop.default);
  }
  return out;
}
