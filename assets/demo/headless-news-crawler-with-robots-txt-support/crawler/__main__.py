"""Polite news crawler: robots.txt, per-domain delays, canonical-URL dedup, SQLite storage."""
import argparse
import asyncio
import sqlite3
import time
from urllib.parse import urljoin, urlparse
from urllib.robotparser import RobotFileParser

from playwright.async_api import async_playwright

USER_AGENT = "demo-news-crawler/1.0"
SCHEMA = """create table if not exists articles (
  url text primary key, title text, published text, body text, fetched_at real)"""

class Politeness:
    def __init__(self, delay: float):
        self.delay = delay
        self.robots: dict[str, RobotFileParser] = {}
        self.last_hit: dict[str, float] = {}

    def allowed(self, url: str) -> bool:
        host = urlparse(url).netloc
        if host not in self.robots:
            rp = RobotFileParser(f"{urlparse(url).scheme}://{host}/robots.txt")
            try:
                rp.read()
            except OSError:
                rp.allow_all = True
            self.robots[host] = rp
        return self.robots[host].can_fetch(USER_AGENT, url)

    async def wait(self, url: str) -> None:
        host = urlparse(url).netloc
        elapsed = time.monotonic() - self.last_hit.get(host, 0.0)
        if elapsed < self.delay:
            await asyncio.sleep(self.delay - elapsed)
        self.last_hit[host] = time.monotonic()

async def extract(page):
    canonical = await page.eval_on_selector(
        "link[rel=canonical]", "e => e.href", strict=False
    ) if await page.query_selector("link[rel=canonical]") else page.url
    title = await page.title()
    published = await page.evaluate(
        "() => document.querySelector('meta[property=\"article:published_time\"]')?.content ?? null")
    body = await page.evaluate(
        "() => [...document.querySelectorAll('article p, main p')].map(p => p.innerText).join('\\n')")
    links = await page.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href)")
    return canonical, title, published, body, links

async def crawl(seeds, db_path: str, delay: float, max_pages: int) -> int:
    db = sqlite3.connect(db_path)
    db.execute(SCHEMA)
    polite = Politeness(delay)
    queue, seen, stored = list(seeds), set(seeds), 0
    async with async_playwright() as pw:
        browser = await pw.chromium.launch()
        page = await browser.new_page(user_agent=USER_AGENT)
        while queue and stored < max_pages:
            url = queue.pop(0)
            if not polite.allowed(url):
                continue
            await polite.wait(url)
            try:
                await page.goto(url, timeout=20_000)
            except Exception as err:  # network errors skip one page, never the crawl
                print(f"skip {url}: {err}")
                continue
            canonical, title, published, body, links = await extract(page)
            if body and len(body) > 400:
                cur = db.execute("insert or ignore into articles values (?,?,?,?,?)",
                                 (canonical, title, published, body, time.time()))
                stored += cur.rowcount
                db.commit()
            for link in links:
                link = urljoin(url, link).split("#")[0]
                if urlparse(link).netloc == urlparse(url).netloc and link not in seen:
                    seen.add(link)
                    queue.append(link)
        await browser.close()
    return stored

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("seeds", help="file with one start URL per line")
    ap.add_argument("--db", default="news.sqlite")
    ap.add_argument("--delay", type=float, default=2.0)
    ap.add_argument("--max-pages", type=int, default=500)
    args = ap.parse_args()
    seeds = [l.strip() for l in open(args.seeds, encoding="utf8") if l.strip()]
    print(f"stored {asyncio.run(crawl(seeds, args.db, args.delay, args.max_pages))} articles")

if __name__ == "__main__":
    main()
