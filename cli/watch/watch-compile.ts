export async function watchCompile(..._a: unknown[]): Promise<number> { return 2; }
