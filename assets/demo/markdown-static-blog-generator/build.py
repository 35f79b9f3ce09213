"""Build a static blog from Markdown posts with front matter."""
import hashlib
import json
import sys
from collections import defaultdict
from datetime import datetime
from email.utils import format_datetime
from pathlib import Path

import markdown
from jinja2 import Environment, FileSystemLoader

MD = markdown.Markdown(extensions=["fenced_code", "codehilite", "tables"])

def parse_post(path: Path) -> dict:
    text = path.read_text(encoding="utf8")
    meta, body = {}, text
    if text.startswith("---\n"):
        header, body = text[4:].split("\n---\n", 1)
        for line in header.splitlines():
            key, _, value = line.partition(":")
            meta[key.strip()] = value.strip()
    meta["tags"] = [t.strip() for t in meta.get("tags", "").split(",") if t.strip()]
    meta["date"] = datetime.fromisoformat(meta.get("date", "1970-01-01"))
    meta["slug"] = path.stem
    meta["source"] = body
    return meta

def rss(posts, site) -> str:
    items = "".join(
        f"<item><title>{p['title']}</title><link>{site['url']}/{p['slug']}.html</link>"
        f"<pubDate>{format_datetime(p['date'])}</pubDate></item>" for p in posts[:20])
    return (f'<?xml version="1.0"?><rss version="2.0"><channel><title>{site["title"]}</title>'
            f"<link>{site['url']}</link>{items}</channel></rss>")

def build(src: Path, out: Path) -> int:
    site = json.loads((src / "site.json").read_text())
    env = Environment(loader=FileSystemLoader(src / "templates"), autoescape=True)
    out.mkdir(parents=True, exist_ok=True)
    cache_file = out / ".build-cache.json"
    cache = json.loads(cache_file.read_text()) if cache_file.exists() else {}
    posts = sorted((parse_post(p) for p in (src / "posts").glob("*.md")), key=lambda p: p["date"], reverse=True)
    rendered, tags = 0, defaultdict(list)
    for post in posts:
        for tag in post["tags"]:
            tags[tag].append(post)
        digest = hashlib.sha256(post["source"].encode()).hexdigest()
        if cache.get(post["slug"]) == digest and (out / f"{post['slug']}.html").exists():
            continue  # unchanged since the last build
        post["html"] = MD.reset().convert(post["source"])
        (out / f"{post['slug']}.html").write_text(env.get_template("post.html").render(post=post, site=site))
        cache[post["slug"]] = digest
        rendered += 1
    (out / "index.html").write_text(env.get_template("index.html").render(posts=posts, site=site))
    for tag, tagged in tags.items():
        (out / f"tag-{tag}.html").write_text(env.get_template("index.html").render(posts=tagged, site=site, tag=tag))
    (out / "feed.xml").write_text(rss(posts, site))
    cache_file.write_text(json.dumps(cache))
    return rendered

if __name__ == "__main__":
    print(f"rendered {build(Path(sys.argv[1]), Path(sys.argv[2]))} changed posts")
