import { useEffect, useState } from "preact/hooks";

/** The console routes on the hash (`#/agents/ID/chat`), so the server serves one page. */
export function useRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  const [parts, setParts] = useState(read);
  useEffect(() => {
    const update = () => setParts(read());
    addEventListener("hashchange", update);
    return () => removeEventListener("hashchange", update);
  }, []);
  return parts;
}

export function go(path: string): void {
  location.hash = `#/${path}`;
}
