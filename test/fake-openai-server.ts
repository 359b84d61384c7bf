import {
  type FakeProviderServer,
  type ReplyFor,
  type ScriptedReply,
  startFakeProvider,
} from "./support/fake-provider-server.js";
import { openAiChatWire } from "./support/wire/openai-chat.js";

export type {
  RecordedRequest,
  ReplyFor,
  ScriptedCompletion,
  ScriptedError,
  ScriptedReply,
  ScriptedToolCall,
} from "./support/fake-provider-server.js";

export type FakeOpenAiServer = FakeProviderServer;

/**
 * Starts a local server on a free port that speaks OpenAI chat completions, both plain JSON
 * and SSE streaming; its `baseUrl` ends in `/v1`. Each request consumes the next scripted
 * reply; when none are left it answers 500 so a test that calls the model too often fails.
 */
export function startFakeOpenAiServer(
  script: ScriptedReply[] | ReplyFor,
): Promise<FakeOpenAiServer> {
  return startFakeProvider(openAiChatWire, script);
}
