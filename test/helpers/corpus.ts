import type { Files } from './archives.js';

/**
 * Realistic small projects in several stacks (the benign corpus): every one must pass the scan.
 * Written out in full so that the complexity heuristic is tested on code that looks like code.
 */
export const BENIGN_PROJECTS: Record<string, Files> = {
  'node-express-api': {
    'package.json': JSON.stringify(
      {
        name: 'todo-api',
        version: '1.2.0',
        type: 'module',
        scripts: { start: 'node src/server.js', test: 'node --test' },
        dependencies: { express: '^4.19.2' },
      },
      null,
      2,
    ),
    'README.md':
      '# Todo API\n\nA tiny REST API for todos backed by an in-memory store.\n\n```sh\nnpm start\n```\n',
    '.gitignore': 'node_modules/\n.env\n',
    'src/server.js': `import express from 'express';
import { TodoStore } from './store.js';

const app = express();
const store = new TodoStore();
app.use(express.json());

app.get('/todos', (req, res) => {
  res.json(store.list({ done: req.query.done === 'true' ? true : undefined }));
});

app.post('/todos', (req, res) => {
  const { title } = req.body ?? {};
  if (typeof title !== 'string' || title.trim() === '') {
    return res.status(400).json({ error: 'title_required' });
  }
  res.status(201).json(store.add(title.trim()));
});

app.patch('/todos/:id', (req, res) => {
  const todo = store.toggle(Number(req.params.id));
  if (!todo) return res.status(404).json({ error: 'not_found' });
  res.json(todo);
});

const port = Number(process.env.PORT ?? 3000);
app.listen(port, () => console.log(\`listening on \${port}\`));
`,
    'src/store.js': `export class TodoStore {
  #items = new Map();
  #next = 1;

  add(title) {
    const todo = { id: this.#next++, title, done: false, createdAt: new Date().toISOString() };
    this.#items.set(todo.id, todo);
    return todo;
  }

  toggle(id) {
    const todo = this.#items.get(id);
    if (!todo) return undefined;
    todo.done = !todo.done;
    return todo;
  }

  list({ done } = {}) {
    const all = [...this.#items.values()];
    return done === undefined ? all : all.filter((t) => t.done === done);
  }
}
`,
    'test/store.test.js': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TodoStore } from '../src/store.js';

test('adds and toggles', () => {
  const s = new TodoStore();
  const t = s.add('write tests');
  assert.equal(s.toggle(t.id).done, true);
  assert.deepEqual(s.list({ done: true }).map((x) => x.title), ['write tests']);
});
`,
  },
  'python-flask-app': {
    'requirements.txt': 'flask==3.0.3\npytest==8.2.0\n',
    'README.md': '# URL shortener\n\nFlask service that shortens URLs and counts visits.\n',
    'app/__init__.py': `from flask import Flask

def create_app(config=None):
    app = Flask(__name__)
    app.config.update(SECRET_KEY_ENV="SHORTENER_SECRET", **(config or {}))
    from .routes import bp
    app.register_blueprint(bp)
    return app
`,
    'app/routes.py': `import string
import random
from flask import Blueprint, jsonify, redirect, request, abort

bp = Blueprint("shortener", __name__)
_links = {}
_hits = {}
ALPHABET = string.ascii_letters + string.digits


def make_slug(length=7):
    return "".join(random.choice(ALPHABET) for _ in range(length))


@bp.post("/links")
def create_link():
    payload = request.get_json(silent=True) or {}
    url = payload.get("url", "")
    if not url.startswith(("http://", "https://")):
        return jsonify(error="invalid_url"), 400
    slug = make_slug()
    while slug in _links:
        slug = make_slug()
    _links[slug] = url
    _hits[slug] = 0
    return jsonify(slug=slug, url=url), 201


@bp.get("/<slug>")
def follow(slug):
    if slug not in _links:
        abort(404)
    _hits[slug] += 1
    return redirect(_links[slug], code=302)


@bp.get("/links/<slug>/stats")
def stats(slug):
    if slug not in _links:
        abort(404)
    return jsonify(slug=slug, hits=_hits[slug])
`,
    'tests/test_routes.py': `from app import create_app


def test_create_and_follow():
    client = create_app({"TESTING": True}).test_client()
    res = client.post("/links", json={"url": "https://example.org"})
    assert res.status_code == 201
    slug = res.get_json()["slug"]
    assert client.get(f"/{slug}").status_code == 302
    assert client.get(f"/links/{slug}/stats").get_json()["hits"] == 1
`,
  },
  'go-cli': {
    'go.mod': 'module example.com/wc\n\ngo 1.22\n',
    'README.md': '# wc\n\nCounts lines, words and bytes like the classic tool.\n',
    'main.go': `package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"unicode"
)

type counts struct {
	lines, words, bytes int
}

func count(r io.Reader) (counts, error) {
	var c counts
	br := bufio.NewReader(r)
	inWord := false
	for {
		ch, size, err := br.ReadRune()
		if err == io.EOF {
			break
		}
		if err != nil {
			return c, err
		}
		c.bytes += size
		if ch == '\\n' {
			c.lines++
		}
		if unicode.IsSpace(ch) {
			inWord = false
		} else if !inWord {
			inWord = true
			c.words++
		}
	}
	return c, nil
}

func main() {
	onlyLines := flag.Bool("l", false, "print only the line count")
	flag.Parse()
	c, err := count(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wc:", err)
		os.Exit(1)
	}
	if *onlyLines {
		fmt.Println(c.lines)
		return
	}
	fmt.Printf("%d %d %d\\n", c.lines, c.words, c.bytes)
}
`,
    'main_test.go': `package main

import (
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	c, err := count(strings.NewReader("hello world\\nsecond line\\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.lines != 2 || c.words != 4 {
		t.Fatalf("unexpected counts %+v", c)
	}
}
`,
  },
  'rust-lib': {
    'Cargo.toml':
      '[package]\nname = "ringbuf-lite"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    'README.md':
      '# ringbuf-lite\n\nA fixed-capacity ring buffer without allocation after construction.\n',
    'src/lib.rs': `//! A fixed-capacity ring buffer.

pub struct RingBuffer<T> {
    items: Vec<Option<T>>,
    head: usize,
    len: usize,
}

impl<T> RingBuffer<T> {
    pub fn with_capacity(capacity: usize) -> Self {
        assert!(capacity > 0, "capacity must be positive");
        let mut items = Vec::with_capacity(capacity);
        items.resize_with(capacity, || None);
        Self { items, head: 0, len: 0 }
    }

    pub fn capacity(&self) -> usize {
        self.items.len()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Pushes an item, returning the evicted oldest item when full.
    pub fn push(&mut self, value: T) -> Option<T> {
        let cap = self.capacity();
        let tail = (self.head + self.len) % cap;
        let evicted = self.items[tail].replace(value);
        if self.len == cap {
            self.head = (self.head + 1) % cap;
        } else {
            self.len += 1;
        }
        evicted
    }

    pub fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let value = self.items[self.head].take();
        self.head = (self.head + 1) % self.capacity();
        self.len -= 1;
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_oldest_when_full() {
        let mut rb = RingBuffer::with_capacity(2);
        assert_eq!(rb.push(1), None);
        assert_eq!(rb.push(2), None);
        assert_eq!(rb.push(3), Some(1));
        assert_eq!(rb.pop(), Some(2));
    }
}
`,
  },
  'static-web': {
    'index.html': `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Pomodoro timer</title>
    <link rel="stylesheet" href="style.css" />
  </head>
  <body>
    <main class="timer">
      <h1 id="clock">25:00</h1>
      <div class="controls">
        <button id="start">Start</button>
        <button id="pause">Pause</button>
        <button id="reset">Reset</button>
      </div>
    </main>
    <script src="app.js"></script>
  </body>
</html>
`,
    'style.css': `body { font-family: system-ui, sans-serif; background: #fdf6e3; }
.timer { max-width: 24rem; margin: 4rem auto; text-align: center; }
#clock { font-size: 5rem; letter-spacing: 0.05em; }
.controls button { margin: 0 0.25rem; padding: 0.5rem 1rem; border-radius: 0.5rem; }
`,
    'app.js': `const WORK_SECONDS = 25 * 60;
let remaining = WORK_SECONDS;
let timer = null;
const clock = document.getElementById('clock');

function render() {
  const minutes = String(Math.floor(remaining / 60)).padStart(2, '0');
  const seconds = String(remaining % 60).padStart(2, '0');
  clock.textContent = minutes + ':' + seconds;
  document.title = clock.textContent + ' - Pomodoro';
}

function tick() {
  if (remaining === 0) {
    clearInterval(timer);
    timer = null;
    new Audio('done.mp3').play().catch(() => {});
    return;
  }
  remaining -= 1;
  render();
}

document.getElementById('start').addEventListener('click', () => {
  if (timer === null) timer = setInterval(tick, 1000);
});
document.getElementById('pause').addEventListener('click', () => {
  clearInterval(timer);
  timer = null;
});
document.getElementById('reset').addEventListener('click', () => {
  clearInterval(timer);
  timer = null;
  remaining = WORK_SECONDS;
  render();
});
render();
`,
  },
};
