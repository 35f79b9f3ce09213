import { describe, expect, it } from 'vitest';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { DEFAULT_SCAN_LIMITS } from '../../src/scan/types.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';

/** Honest code the scan refused (and so banned its bytes for good), and its dishonest twin. */
const scanWith = (file: string, text: string) =>
  scanArchive(zipOf({ ...uniqueProject(), [file]: text }), 'zip', DEFAULT_SCAN_LIMITS);
const GOOGLE_KEY = 'AIzaSyDOCAbC123dEf456GhI789jKl012-MnOpQ';
/** jwt.io's published example token (HS256, signed with its documented secret). */
const JWT_IO =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

describe('false positives', () => {
  it.each([
    [
      'DER to PEM helper (no key in it)',
      'src/pem.ts',
      "export const toPem = (b64: string) =>\n  '-----BEGIN PRIVATE KEY-----\\n' + b64 + '\\n-----END PRIVATE KEY-----\\n';\n",
    ],
    [
      'Python f-string PEM builder',
      'src/pem.py',
      'def to_pem(body):\n    return f"-----BEGIN PRIVATE KEY-----\\n{body}\\n-----END PRIVATE KEY-----\\n"\n',
    ],
    [
      'PEM builder with a long variable name',
      'src/pem.ts',
      "const pem = '-----BEGIN PRIVATE KEY-----\\n' + base64EncodedPrivateKeyBodyFromTheDerBytes;\n",
    ],
    [
      'Firebase web config (public by design)',
      'src/firebase.ts',
      'export const firebaseConfig = {\n  apiKey: "AIzaSyDOCAbC123dEf456GhI789jKl012-MnO",\n  authDomain: "demo-app.firebaseapp.com",\n};\n',
    ],
    [
      'Firebase web config, 35-character key',
      'src/firebase.js',
      `const app = initializeApp({\n  apiKey: '${GOOGLE_KEY}',\n  authDomain: 'shop-4f2a1.firebaseapp.com',\n  projectId: 'shop-4f2a1',\n});\n`,
    ],
    [
      "jwt.io's published example token in a test",
      'test/auth.test.ts',
      `const token = "${JWT_IO}";\n`,
    ],
  ])('%s is accepted', async (_what, file, text) => {
    const out = await scanWith(file, text);
    expect(out.verdict === 'reject' ? out.findings.map((f) => f.check) : 'accept').toBe('accept');
  });

  it.each([
    [
      'a Google API key under apiKey outside a Firebase config',
      'src/maps.ts',
      `export const maps = {\n  apiKey: "${GOOGLE_KEY}",\n  region: "eu",\n};\n`,
      2,
    ],
    [
      'a Firebase-looking key far from any auth domain',
      'src/keys.ts',
      `export const keys = {\n  apiKey: "${GOOGLE_KEY}",\n${'  pad: 1,\n'.repeat(20)}};\n// see https://demo.firebaseapp.com\n`,
      2,
    ],
    [
      'a second key under apiKey, far from the Firebase config of the file',
      'src/config.ts',
      `export const firebase = {\n  apiKey: "AIzaSyDOCAbC123dEf456GhI789jKl012-MnO",\n  authDomain: "demo-app.firebaseapp.com",\n};\n${'// -\n'.repeat(20)}export const maps = {\n  apiKey: "${GOOGLE_KEY}",\n};\n`,
      26,
    ],
    [
      'a JWT not signed with a published example secret',
      'test/auth.test.ts',
      `const token = "${JWT_IO.slice(0, -4)}Qx9z";\n`,
      1,
    ],
  ])('%s is still refused', async (_what, file, text, line) => {
    const out = await scanWith(file, text);
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({ file, line });
  });
});
