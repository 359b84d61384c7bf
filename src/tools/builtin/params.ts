import { z } from "zod";

export const str = (description: string) => z.string().describe(description);
export const int = (description: string, minimum = 0) => z.int().min(minimum).describe(description);
export const strList = (description: string) => z.array(z.string()).describe(description);
