/** Holdfast as a library: agent types, their capabilities, configuration and the server. */
export { type ConfigResult, checkConfig, type HoldfastConfig } from "./config/config-file.js";
export { findConfigPath, loadConfig } from "./config/load-config.js";
export * from "./core/errors.js";
export { VERSION } from "./core/version.js";
export { createApp } from "./server/app.js";
export { listen, type RunningServer } from "./server/serve.js";
export {
  builtinToolCatalogue,
  createToolCatalogue,
  type ToolCatalogue,
} from "./tools/catalogue.js";
export { defineTool, RiskClass, type ToolDeclaration } from "./tools/tool-declaration.js";
export { AgentType, CoreBlockTemplate } from "./types/agent-type.js";
export { AgentTypeDraft, defineAgentType } from "./types/agent-type-draft.js";
export * from "./types/axes.js";
export { BUILTIN_TYPES } from "./types/builtins.js";
export { checkToolCall, effectiveCapabilities } from "./types/capabilities.js";
export { EffectiveCapabilities, ToolGrant, WithheldTool } from "./types/capabilities-schema.js";
export { checkOverrides } from "./types/override-check.js";
export { AgentOverrides } from "./types/overrides.js";
export { AgentTypeRegistry } from "./types/registry.js";
