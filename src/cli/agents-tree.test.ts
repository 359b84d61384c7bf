import { describe, expect, it } from "vitest";
import { type ChildNode, formatTree } from "./agents-tree.js";

const node = (name: string, status: string, children: ChildNode[] = []): ChildNode => ({
  id: `agent-${name}`,
  name,
  agent_type: "worker",
  status,
  task_run:
    status === "idle" ? { id: "run-1", status: "completed", stop_reason: "end_turn" } : null,
  children,
});
const leaf = (name: string): ChildNode => node(name, "idle");

describe("holdfast agents tree", () => {
  it("draws each sub-agent under its parent with its status and how its task ended", () => {
    const tree = [node("a", "awaiting_children", [leaf("a1"), leaf("a2")]), node("b", "running")];
    expect(formatTree(tree, "")).toEqual([
      "├─ a [worker] awaiting_children, task not started  agent-a",
      "│  ├─ a1 [worker] idle, task completed (end_turn)  agent-a1",
      "│  └─ a2 [worker] idle, task completed (end_turn)  agent-a2",
      "└─ b [worker] running, task not started  agent-b",
    ]);
  });
});
