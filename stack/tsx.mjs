// Why: the tooling's TypeScript runs with tsx, whose transform cache would stay behind in the temp directory.
process.env.TSX_DISABLE_CACHE ??= '1';
await import('tsx');
