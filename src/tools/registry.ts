import type { ToolSpec } from '../types.js';
import type { AnyTool } from './tool.js';

/** What providers are sent of a tool: its JSON Schema as it is (no zod needed, see inputs.ts). */
export function toToolSpec(tool: AnyTool): ToolSpec {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}

export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();
  private readonly allSpecs: ToolSpec[] = [];
  readonly tools: AnyTool[] = [];

  constructor(tools: AnyTool[]) {
    this.add(tools);
  }

  /** Tools that become available later (those of an MCP server that was still starting). */
  add(tools: readonly AnyTool[]): void {
    for (const t of tools) {
      if (this.byName.has(t.name)) throw new Error(`Two tools are named ${t.name}.`);
      this.byName.set(t.name, t);
      this.tools.push(t);
      this.allSpecs.push(toToolSpec(t));
    }
  }

  /** What is offered to the model now: every tool but those that said they can no longer work. */
  get specs(): ToolSpec[] {
    return this.allSpecs.filter((_, i) => this.tools[i]!.available?.() !== false);
  }

  get(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }
}
