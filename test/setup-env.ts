import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

// n8n-core reads and writes its instance settings under N8N_USER_FOLDER when first imported.
if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = mkdtempSync(join(tmpdir(), 'wex-n8n-'));
}
process.env.N8N_RUNNERS_ENABLED ??= 'false';
