// Command answers shaped exactly like the generated bindings (ui/src/bindings).
export const searchPrice = {
  reference: 'search-price@1.2.0', name: 'search-price', version: '1.2.0', kind: 'browser', contract_only: false,
  description: "Search the shop and read the first result's price.", capabilities: ['browser'],
  digest: 'sha256:6ada91fe84b56d50ab47cfac9122c8e3e07d4212ba8e3023f1d4032299421d1c',
  inputs: [{ name: 'query', type: 'string', secret: false, required: true, default: null }],
  output: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' }, currency: { type: 'string' } } },
  path: '/w/recordings/search-price@1.2.0.json', source: { type: 'folder', dir: '/w/recordings' },
  last_run: { status: 'passed', finished_at: Math.floor(Date.now() / 1000) - 120, duration_ms: 2300, run_id: 'r1', error: null, warnings: [] }, problem: null, also_in_pack: null,
};
export const login = {
  ...searchPrice, reference: 'shop-login@1.0.0', name: 'shop-login', version: '1.0.0', description: 'Log in to the shop.',
  capabilities: ['browser', 'secrets'], digest: 'sha256:11aa22bb33cc44dd55ee66ff77889900aabbccddeeff00112233445566778899',
  inputs: [{ name: 'user', type: 'string', secret: false, required: true, default: null }, { name: 'password', type: 'string', secret: true, required: true, default: null }],
  path: '/w/recordings/shop-login@1.0.0.json', last_run: { status: 'failed', finished_at: Math.floor(Date.now() / 1000) - 7200, duration_ms: 900, run_id: 'r2', error: 'step 3 failed', warnings: [] },
};
export const flow = {
  ...searchPrice, reference: 'daily-price-watch@1.0.0', name: 'daily-price-watch', version: '1.0.0', kind: 'flow',
  description: 'Search the shop; alert when the price drops.', capabilities: ['browser', 'net', 'secrets'],
  digest: 'sha256:99887766554433221100ffeeddccbbaa99887766554433221100ffeeddccbbaa',
  path: '/w/recordings/daily-price-watch.flow.json', last_run: null,
};
export const packed = {
  ...searchPrice, reference: 'price-alert@1.0.0', name: 'price-alert', version: '1.0.0', kind: 'transform', capabilities: [],
  description: 'Compare a price to a threshold.', path: '/store/sha256-ab/tools/price-alert@1.0.0.json',
  source: { type: 'pack', pack: 'prices@1.0.0', digest: 'sha256:abab' }, last_run: null,
};
export const broken = {
  ...searchPrice, reference: 'broken@1.0.0', name: 'broken', version: '1.0.0', kind: 'unknown', capabilities: [], digest: '',
  description: '', path: '/w/recordings/broken@1.0.0.json', last_run: null, problem: 'invalid_json: not valid JSON: expected value at line 1',
};
export const library = [searchPrice, login, flow, packed, broken];

// `kind_label` is what the Rust view says of the kind (`StepKind::label`).
const step = (index, [kind, kind_label], label, candidates) => ({
  index, kind, kind_label, label, state: 'pending', duration_ms: null, winner: null, candidates, navigated_to: null, error: null, screenshot: null,
});
export const plan = [
  step(0, ['navigate', 'open page'], 'Open the shop', []),
  step(1, ['fill', 'fill'], 'Type the query', ['test_id "search-input"', 'role searchbox "Search products"']),
  step(2, ['key_press', 'press key'], 'Submit the search', []),
  step(3, ['click', 'click'], 'Open the first result', ['css "[data-testid=results] > li:first-child a"', 'xpath "(//main//ul/li)[1]/a"']),
  step(4, ['extract', 'read'], 'Read the product name', ['test_id "product-name"']),
  step(5, ['extract', 'read'], 'Read the price', ['test_id "product-price"']),
];
// A 1×1 PNG.
export const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
