import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PlaygroundEngine, runAndersen, runScheme } from '../../../docs/.vitepress/theme/playground';
import { type StaticServer, serveStatic } from './static-server';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const dist = `${root}docs/.vitepress/dist`;

/** Debian's `chromium` package, or the browser GPUMORPH_CHROMIUM names. */
const chromiumPath = [process.env.GPUMORPH_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (path): path is string => path !== undefined && path !== '' && existsSync(path),
);
const requireBrowser = process.env.GPUMORPH_REQUIRE_BROWSER === '1';
if (!chromiumPath && !requireBrowser)
  console.warn(
    'playground browser test skipped: no Chromium (apt-get install chromium, or set GPUMORPH_CHROMIUM); ' +
      'GPUMORPH_REQUIRE_BROWSER=1 makes this a failure',
  );

/** The two boxes of the page, their examples, and a line each must print (checked by hand against the C and Scheme sources). */
const analyses = [
  {
    analysis: 'andersen',
    example: readFileSync(`${root}examples/andersen/callbacks.constraints.txt`, 'utf8'),
    run: runAndersen,
    known: ['run.fn -> {on_a, on_b}', 'head -> {n1, n2}', 'h1 -> {on_a}'],
  },
  {
    analysis: 'scheme',
    example: readFileSync(`${root}examples/eigencfa/church.scm`, 'utf8'),
    run: runScheme,
    // `one` is `(succ zero)`: the lambda of succ's body, at 3:18.
    known: ['one@14:9 <- {λ@3:18}', 'zero@2:9 <- {λ(zero)@2:14}'],
  },
] as const;

async function solveOnPage(
  page: Page,
  url: string,
  analysis: string,
  example: string,
  engine: PlaygroundEngine,
) {
  await page.goto(`${url}/playground`);
  const input = page.getByTestId(`${analysis}-input`);
  await expect.poll(() => input.inputValue(), { timeout: 30_000 }).toBe(example);
  await page.getByTestId(`${analysis}-engine`).selectOption(engine);
  await page.getByTestId(`${analysis}-solve`).click();
  const done = page.locator(`[data-testid="${analysis}-result"], [data-testid="${analysis}-error"]`).first();
  await done.waitFor({ timeout: 90_000 });
  // Playwright's textContent (the text as the page holds it); `<pre>` keeps the line breaks.
  const text = async (testId: string, inner?: string) => {
    const locator = page.getByTestId(`${analysis}-${testId}`);
    return ((await (inner ? locator.locator(inner) : locator).textContent()) ?? '').replace(/\s+$/, '');
  };
  if ((await page.getByTestId(`${analysis}-error`).count()) > 0)
    throw new Error(`the page reports: ${await text('error')}`);
  return {
    engine: await text('engine-ran'),
    summary: (await text('result', 'p')).replace(/\s+/g, ' '),
    lines: (await text('sets')).split('\n'),
  };
}

describe.skipIf(!chromiumPath && !requireBrowser)('playground page in headless Chromium', () => {
  let server: StaticServer;
  let browser: Browser;

  beforeAll(async () => {
    if (!chromiumPath)
      throw new Error('GPUMORPH_REQUIRE_BROWSER=1 but no Chromium was found (apt-get install chromium)');
    // `npm test` builds the site first; a lone `vitest run` builds it when there is none yet.
    if (!existsSync(`${dist}/playground.html`))
      execFileSync('npm', ['run', 'docs:build'], { cwd: root, stdio: 'inherit' });
    server = await serveStatic(dist);
    // WebGPU stays behind a flag in Chromium on Linux; with it the page gets Chromium's adapter.
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--enable-unsafe-webgpu'],
    });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it.each(analyses)(
    '$analysis: without navigator.gpu, falls back to the CPU engine and prints its sets',
    async ({ analysis, example, run, known }) => {
      const context = await browser.newContext();
      // A browser without WebGPU: the page must notice and run the CPU engine.
      await context.addInitScript(() => {
        // (Typed by hand: the tests compile without the DOM library.)
        const { Navigator } = globalThis as unknown as { Navigator: { prototype: object } };
        Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true });
      });
      const shown = await solveOnPage(await context.newPage(), server.url, analysis, example, 'auto');
      await context.close();
      expect(shown.engine).toBe('cpu');
      expect(shown.summary).toContain('navigator.gpu is missing');
      for (const line of known) expect(shown.lines).toContain(line);
      // The same analysis run here in Node on the CPU engine is the oracle for every line.
      expect(shown.lines).toEqual((await run(example, 'cpu')).lines);
    },
  );

  it.each(analyses)(
    '$analysis: with navigator.gpu, prints the same sets as the CPU engine',
    async ({ analysis, example, run }) => {
      const page = await browser.newPage();
      await page.goto(`${server.url}/`);
      const hasAdapter = await page.evaluate(async () => {
        const { navigator } = globalThis as unknown as { navigator: { gpu?: GPU } };
        return Boolean(await navigator.gpu?.requestAdapter());
      });
      expect(hasAdapter, 'Chromium with --enable-unsafe-webgpu offers an adapter').toBe(true);
      const shown = await solveOnPage(page, server.url, analysis, example, 'auto');
      await page.close();
      // Under `auto` a WebGPU engine that cannot run on Chromium's adapter falls back and says why.
      console.info(`playground ${analysis} in Chromium: ${shown.summary}`);
      expect(shown.summary).toMatch(/WebGPU adapter|WebGPU engine failed on this adapter/);
      expect(shown.lines).toEqual((await run(example, 'cpu')).lines);
    },
  );

  it('scheme: the WebGPU engine runs in the browser when asked for', async () => {
    const { example, run } = analyses[1];
    const page = await browser.newPage();
    const shown = await solveOnPage(page, server.url, 'scheme', example, 'webgpu');
    await page.close();
    expect(shown.engine).toBe('webgpu');
    expect(shown.lines).toEqual((await run(example, 'cpu')).lines);
  });
});
