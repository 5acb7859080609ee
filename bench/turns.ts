/** Per-step times of each mode; the modes take turns step by step, so they see the same load on a shared machine. */
export async function timeInTurns(count: number, modes: ((index: number) => Promise<void>)[]): Promise<number[][]> {
  const times = modes.map(() => [] as number[]);
  for (let index = 0; index < count; index++) {
    for (const [mode, step] of modes.entries()) {
      const began = performance.now();
      await step(index);
      times[mode].push(performance.now() - began);
    }
  }
  return times;
}
