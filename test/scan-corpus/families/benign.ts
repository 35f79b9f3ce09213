import type { Files } from '../../helpers/archives.js';
import { BENIGN_PROJECTS } from '../../helpers/corpus.js';
import { pack } from '../build.js';
import type { CorpusCase, CorpusCompression } from '../types.js';
import {
  b64,
  camel,
  cap,
  ciWorkflow,
  DOMAINS,
  ENTITIES,
  envExample,
  FIELDS,
  gzipFixture,
  hardhatDocs,
  hex,
  int,
  minifiedBundle,
  notebook,
  pick,
  prng,
  readme,
  sourceMap,
  testJar,
  type Rand,
} from './benign-parts.js';

/**
 * Ordinary projects in nine stacks, 20 to 300 files each, generated from templates with varied
 * module names: each must pass the scan. Besides code they carry what real repositories carry
 * (see benign-parts.ts), so that a rule which refuses any of those shows up as a false positive.
 */
interface Module {
  domain: string;
  entity: string;
  fields: string[];
  n: number;
}

function modules(r: Rand, count: number): Module[] {
  const seen = new Set<string>();
  const out: Module[] = [];
  while (out.length < count) {
    const domain = pick(r, DOMAINS);
    const entity = pick(r, ENTITIES);
    const key = `${domain}/${entity}`;
    if (seen.has(key)) {
      if (seen.size >= DOMAINS.length * ENTITIES.length) break;
      continue;
    }
    seen.add(key);
    const fields = [...new Set(Array.from({ length: int(r, 3, 7) }, () => pick(r, FIELDS)))];
    out.push({ domain, entity, fields, n: int(r, 2, 97) });
  }
  return out;
}

type Stack = (r: Rand, name: string, mods: Module[]) => Files;

const node: Stack = (r, name, mods) => {
  const f: Files = {
    'package.json': JSON.stringify(
      {
        name,
        version: `1.${int(r, 0, 9)}.${int(r, 0, 20)}`,
        type: 'module',
        scripts: { start: 'node src/index.js', test: 'node --test', postinstall: 'husky install' },
        dependencies: { express: '^4.19.2', zod: '^3.23.8' },
      },
      null,
      2,
    ),
    'package-lock.json': JSON.stringify(
      {
        name,
        lockfileVersion: 3,
        packages: Object.fromEntries(
          ['express', 'zod', 'accepts', 'body-parser', 'cookie', 'debug', 'ms', 'qs'].map((p) => [
            `node_modules/${p}`,
            {
              version: `${int(r, 0, 9)}.${int(r, 0, 30)}.${int(r, 0, 9)}`,
              resolved: `https://registry.npmjs.org/${p}/-/${p}-1.0.0.tgz`,
              integrity: `sha512-${b64(r, 64)}`,
            },
          ]),
        ),
      },
      null,
      2,
    ),
    'vendor/chart.min.js': minifiedBundle(r, int(r, 8, 40)),
    'dist/app.min.js.map': sourceMap(r, 'app.min.js'),
    'test/fixtures/data.json.gz': gzipFixture(r),
  };
  const exports: string[] = [];
  for (const m of mods) {
    const cls = cap(camel(`${m.domain}_${m.entity}`));
    f[`src/${m.domain}/${m.entity}.js`] = `import { z } from 'zod';

export const ${cls}Schema = z.object({
${m.fields.map((x) => `  ${camel(x)}: z.${x.includes('at') || x === 'name' ? 'string()' : 'number().int()'}.optional(),`).join('\n')}
});

/** ${cap(m.entity)} records of the ${m.domain} module, kept in memory. */
export class ${cls}Store {
  #rows = new Map();

  add(input) {
    const row = ${cls}Schema.parse(input);
    const id = this.#rows.size + ${m.n};
    this.#rows.set(id, { ...row, id });
    return id;
  }

  find(id) {
    return this.#rows.get(id) ?? null;
  }

  list({ limit = ${m.n * 10} } = {}) {
    return [...this.#rows.values()].slice(0, limit);
  }
}
`;
    if (r() < 0.6)
      f[`test/${m.domain}/${m.entity}.test.js`] = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ${cls}Store } from '../../src/${m.domain}/${m.entity}.js';

test('${m.entity} store keeps what it is given', () => {
  const store = new ${cls}Store();
  const id = store.add({});
  assert.deepEqual(store.find(id), { id });
  assert.equal(store.list().length, 1);
});
`;
    exports.push(`export * from './${m.domain}/${m.entity}.js';`);
  }
  f['src/index.js'] = exports.join('\n') + '\n';
  f['.github/workflows/ci.yml'] = ciWorkflow('uses: actions/setup-node@v4', 'npm ci && npm test');
  return f;
};

const python: Stack = (r, name, mods) => {
  const pkg = name.replace(/-/g, '_');
  const f: Files = {
    'pyproject.toml': `[project]\nname = "${name}"\nversion = "0.${int(r, 1, 9)}.0"\nrequires-python = ">=3.10"\ndependencies = ["pydantic>=2", "protobuf>=4"]\n\n[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n`,
    'poetry.lock': ['pydantic', 'protobuf', 'pytest', 'typing-extensions']
      .map(
        (p) =>
          `[[package]]\nname = "${p}"\nversion = "${int(r, 1, 9)}.${int(r, 0, 20)}.0"\noptional = false\nfiles = [\n    {file = "${p}-1.0-py3-none-any.whl", hash = "sha256:${hex(r, 64)}"},\n    {file = "${p}-1.0.tar.gz", hash = "sha256:${hex(r, 64)}"},\n]\n`,
      )
      .join('\n'),
    [`notebooks/${pick(r, DOMAINS)}.ipynb`]: notebook(r, pick(r, DOMAINS)),
    'tests/fixtures/sample.json.gz': gzipFixture(r),
    [`src/${pkg}/__init__.py`]: `"""${name}."""\n__version__ = "0.1.0"\n`,
    [`src/${pkg}/proto/${mods[0]!.entity}_pb2.py`]: `# -*- coding: utf-8 -*-\n# Generated by the protocol buffer compiler.  DO NOT EDIT!\n# source: ${mods[0]!.entity}.proto\n"""Generated protocol buffer code."""\nfrom google.protobuf import descriptor as _descriptor\nfrom google.protobuf import descriptor_pool as _descriptor_pool\nfrom google.protobuf.internal import builder as _builder\n\nDESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\\n\\x0b${mods[0]!.entity}.proto\\x12\\x04${pkg}\\"${Array.from({ length: 40 }, () => `\\x${hex(r, 2)}`).join('')}\\x62\\x06proto3')\n_globals = globals()\n_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)\n_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, '${mods[0]!.entity}_pb2', _globals)\n`,
  };
  for (const m of mods) {
    const cls = cap(camel(`${m.domain}_${m.entity}`));
    f[`src/${pkg}/${m.domain}/${m.entity}.py`] = `from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable


@dataclass
class ${cls}:
${m.fields.map((x) => `    ${x}: ${x.includes('at') || x === 'name' ? 'str' : 'int'} | None = None`).join('\n')}


@dataclass
class ${cls}Repository:
    rows: dict[int, ${cls}] = field(default_factory=dict)

    def add(self, row: ${cls}) -> int:
        key = len(self.rows) + ${m.n}
        self.rows[key] = row
        return key

    def find(self, key: int) -> ${cls} | None:
        return self.rows.get(key)

    def bulk(self, rows: Iterable[${cls}]) -> list[int]:
        return [self.add(r) for r in rows][: ${m.n * 10}]
`;
    f[`src/${pkg}/${m.domain}/__init__.py`] = '';
    if (r() < 0.5)
      f[`tests/${m.domain}/test_${m.entity}.py`] =
        `from ${pkg}.${m.domain}.${m.entity} import ${cls}, ${cls}Repository


def test_${m.entity}_round_trip():
    repo = ${cls}Repository()
    key = repo.add(${cls}())
    assert repo.find(key) == ${cls}()
`;
  }
  return f;
};

const go: Stack = (r, name, mods) => {
  const f: Files = {
    'go.mod': `module github.com/example/${name}\n\ngo 1.22\n\nrequire (\n\tgoogle.golang.org/protobuf v1.34.2\n\tgithub.com/stretchr/testify v1.9.0\n)\n`,
    'go.sum':
      [
        'google.golang.org/protobuf v1.34.2',
        'github.com/stretchr/testify v1.9.0',
        'github.com/davecgh/go-spew v1.1.1',
      ]
        .flatMap((m) => [`${m} h1:${b64(r, 32)}`, `${m}/go.mod h1:${b64(r, 32)}`])
        .join('\n') + '\n',
    'testdata/golden.json.gz': gzipFixture(r),
    [`internal/pb/${mods[0]!.entity}.pb.go`]: `// Code generated by protoc-gen-go. DO NOT EDIT.\n// versions:\n// \tprotoc-gen-go v1.34.2\n// source: ${mods[0]!.entity}.proto\n\npackage pb\n\nimport (\n\tprotoreflect "google.golang.org/protobuf/reflect/protoreflect"\n\tprotoimpl "google.golang.org/protobuf/runtime/protoimpl"\n)\n\nvar file_${mods[0]!.entity}_proto_rawDesc = []byte{\n${Array.from({ length: 12 }, () => '\t' + Array.from({ length: 16 }, () => `0x${hex(r, 2)},`).join(' ')).join('\n')}\n}\n\nvar _ = protoreflect.FullName("${name}")\nvar _ = protoimpl.UnsafeEnabled\n`,
    [`cmd/${name}/main.go`]: `package main\n\nimport (\n\t"log"\n\t"net/http"\n)\n\nfunc main() {\n\tmux := http.NewServeMux()\n\tmux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })\n\tlog.Fatal(http.ListenAndServe(":${int(r, 3000, 9000)}", mux))\n}\n`,
  };
  for (const m of mods) {
    const t = cap(camel(`${m.domain}_${m.entity}`));
    f[`internal/${m.domain}/${m.entity}.go`] = `package ${m.domain}

import (
\t"errors"
\t"sync"
)

// ${t} is one ${m.entity} of the ${m.domain} service.
type ${t} struct {
${m.fields.map((x) => `\t${cap(camel(x))} ${x.includes('at') || x === 'name' ? 'string' : 'int64'}`).join('\n')}
}

// ${t}Store keeps ${m.entity}s in memory.
type ${t}Store struct {
\tmu   sync.Mutex
\trows map[int]${t}
}

var Err${t}NotFound = errors.New("${m.entity} not found")

func (s *${t}Store) Put(row ${t}) int {
\ts.mu.Lock()
\tdefer s.mu.Unlock()
\tif s.rows == nil {
\t\ts.rows = make(map[int]${t})
\t}
\tid := len(s.rows) + ${m.n}
\ts.rows[id] = row
\treturn id
}

func (s *${t}Store) Get(id int) (${t}, error) {
\ts.mu.Lock()
\tdefer s.mu.Unlock()
\trow, ok := s.rows[id]
\tif !ok {
\t\treturn ${t}{}, Err${t}NotFound
\t}
\treturn row, nil
}
`;
    if (r() < 0.5)
      f[`internal/${m.domain}/${m.entity}_test.go`] =
        `package ${m.domain}\n\nimport "testing"\n\nfunc Test${t}Store(t *testing.T) {\n\tvar s ${t}Store\n\tid := s.Put(${t}{})\n\tif _, err := s.Get(id); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n`;
  }
  return f;
};

const rust: Stack = (r, name, mods) => {
  const f: Files = {
    'Cargo.toml': `[package]\nname = "${name}"\nversion = "0.${int(r, 1, 9)}.0"\nedition = "2021"\n\n[dependencies]\nserde = { version = "1", features = ["derive"] }\nthiserror = "1"\n`,
    'Cargo.lock': ['serde', 'serde_derive', 'thiserror', 'proc-macro2', 'quote', 'syn']
      .map(
        (p) =>
          `[[package]]\nname = "${p}"\nversion = "1.0.${int(r, 100, 210)}"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "${hex(r, 64)}"\n`,
      )
      .join('\n'),
    'tests/fixtures/input.json.gz': gzipFixture(r),
  };
  const mods2 = [...new Set(mods.map((m) => m.domain))];
  f['src/lib.rs'] = mods2.map((d) => `pub mod ${d};`).join('\n') + '\n';
  for (const d of mods2) {
    const inD = mods.filter((m) => m.domain === d);
    f[`src/${d}/mod.rs`] = inD.map((m) => `pub mod ${m.entity};`).join('\n') + '\n';
    for (const m of inD) {
      const t = cap(camel(`${m.domain}_${m.entity}`));
      f[`src/${d}/${m.entity}.rs`] = `use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ${t} {
${m.fields.map((x) => `    pub ${x}: Option<${x.includes('at') || x === 'name' ? 'String' : 'i64'}>,`).join('\n')}
}

#[derive(Debug, Default)]
pub struct ${t}Store {
    rows: HashMap<u64, ${t}>,
}

impl ${t}Store {
    pub fn insert(&mut self, row: ${t}) -> u64 {
        let id = self.rows.len() as u64 + ${m.n};
        self.rows.insert(id, row);
        id
    }

    pub fn get(&self, id: u64) -> Option<&${t}> {
        self.rows.get(&id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ${m.entity}_round_trip() {
        let mut store = ${t}Store::default();
        let id = store.insert(${t}::default());
        assert_eq!(store.get(id), Some(&${t}::default()));
    }
}
`;
    }
  }
  return f;
};

const java: Stack = (r, name, mods) => {
  const pkg = `com.example.${name.replace(/-/g, '')}`;
  const dir = pkg.replace(/\./g, '/');
  const f: Files = {
    'pom.xml': `<?xml version="1.0" encoding="UTF-8"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n  <modelVersion>4.0.0</modelVersion>\n  <groupId>com.example</groupId>\n  <artifactId>${name}</artifactId>\n  <version>1.${int(r, 0, 9)}.0</version>\n  <dependencies>\n    <dependency>\n      <groupId>org.junit.jupiter</groupId>\n      <artifactId>junit-jupiter</artifactId>\n      <version>5.10.2</version>\n      <scope>test</scope>\n    </dependency>\n    <dependency>\n      <groupId>com.example</groupId>\n      <artifactId>fixtures</artifactId>\n      <scope>system</scope>\n      <systemPath>\${project.basedir}/libs/test-fixtures.jar</systemPath>\n    </dependency>\n  </dependencies>\n</project>\n`,
    'libs/test-fixtures.jar': testJar(r, `${pkg}.fixtures`),
    'src/test/resources/fixtures/orders.json.gz': gzipFixture(r),
  };
  for (const m of mods) {
    const t = cap(camel(`${m.domain}_${m.entity}`));
    f[`src/main/java/${dir}/${m.domain}/${t}.java`] = `package ${pkg}.${m.domain};

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** One ${m.entity} of the ${m.domain} module. */
public final class ${t} {
${m.fields.map((x) => `    private ${x.includes('at') || x === 'name' ? 'String' : 'long'} ${camel(x)};`).join('\n')}

    public static final class Store {
        private final Map<Long, ${t}> rows = new HashMap<>();

        public long add(${t} row) {
            long id = rows.size() + ${m.n}L;
            rows.put(id, row);
            return id;
        }

        public Optional<${t}> find(long id) {
            return Optional.ofNullable(rows.get(id));
        }
    }
}
`;
    if (r() < 0.5)
      f[`src/test/java/${dir}/${m.domain}/${t}Test.java`] = `package ${pkg}.${m.domain};

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ${t}Test {
    @Test
    void keepsWhatItIsGiven() {
        ${t}.Store store = new ${t}.Store();
        long id = store.add(new ${t}());
        assertTrue(store.find(id).isPresent());
    }
}
`;
  }
  return f;
};

const ruby: Stack = (r, name, mods) => {
  const f: Files = {
    Gemfile: `source "https://rubygems.org"\n\ngem "sinatra", "~> 4.0"\ngem "rspec", group: :test\n`,
    'Gemfile.lock': `GEM\n  remote: https://rubygems.org/\n  specs:\n    mustermann (3.0.${int(r, 0, 3)})\n    rack (3.1.${int(r, 0, 9)})\n    sinatra (4.0.0)\n      mustermann (~> 3.0)\n      rack (>= 3.0.0)\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  rspec\n  sinatra (~> 4.0)\n\nCHECKSUMS\n  rack (3.1.7) sha256=${hex(r, 64)}\n  sinatra (4.0.0) sha256=${hex(r, 64)}\n\nBUNDLED WITH\n   2.5.${int(r, 1, 20)}\n`,
    'spec/fixtures/payload.json.gz': gzipFixture(r),
    'config/database.yml': `development:\n  adapter: postgresql\n  database: ${name}_dev\n  password: <%= ENV["DATABASE_PASSWORD"] %>\n`,
  };
  for (const m of mods) {
    const t = cap(camel(`${m.domain}_${m.entity}`));
    f[`lib/${name}/${m.domain}/${m.entity}.rb`] = `# frozen_string_literal: true

module ${cap(camel(m.domain))}
  # A ${m.entity} of the ${m.domain} module.
  class ${t}
    attr_accessor ${m.fields.map((x) => `:${x}`).join(', ')}

    def initialize(**attrs)
      attrs.each { |key, value| public_send("#{key}=", value) }
    end

    def to_h
      { ${m.fields.map((x) => `${x}: ${x}`).join(', ')} }
    end

    def self.page(rows, size = ${m.n})
      rows.each_slice(size).first || []
    end
  end
end
`;
    if (r() < 0.5)
      f[`spec/${m.domain}/${m.entity}_spec.rb`] =
        `require "${name}/${m.domain}/${m.entity}"\n\nRSpec.describe ${cap(camel(m.domain))}::${t} do\n  it "round-trips its attributes" do\n    expect(described_class.new.to_h.keys.size).to eq(${m.fields.length})\n  end\nend\n`;
  }
  return f;
};

const php: Stack = (r, name, mods) => {
  const ns = cap(camel(name.replace(/-/g, '_')));
  const f: Files = {
    'composer.json': JSON.stringify(
      {
        name: `example/${name}`,
        require: { php: '>=8.2', 'monolog/monolog': '^3.6' },
        autoload: { 'psr-4': { [`${ns}\\`]: 'src/' } },
      },
      null,
      4,
    ),
    'composer.lock': JSON.stringify(
      {
        'content-hash': hex(r, 32),
        packages: ['monolog/monolog', 'psr/log'].map((p) => ({
          name: p,
          version: `3.${int(r, 0, 9)}.0`,
          source: { type: 'git', url: `https://github.com/${p}.git`, reference: hex(r, 40) },
          dist: {
            type: 'zip',
            url: `https://api.github.com/repos/${p}/zipball/${hex(r, 40)}`,
            shasum: '',
          },
        })),
      },
      null,
      4,
    ),
    'tests/fixtures/catalog.json.gz': gzipFixture(r),
  };
  for (const m of mods) {
    const t = cap(camel(`${m.domain}_${m.entity}`));
    f[`src/${cap(m.domain)}/${t}.php`] = `<?php

declare(strict_types=1);

namespace ${ns}\\${cap(m.domain)};

final class ${t}
{
    /** @var array<int, array<string, mixed>> */
    private array $rows = [];

    public function add(array $row): int
    {
        $id = count($this->rows) + ${m.n};
        $this->rows[$id] = array_intersect_key($row, array_flip([${m.fields.map((x) => `'${x}'`).join(', ')}]));
        return $id;
    }

    public function find(int $id): ?array
    {
        return $this->rows[$id] ?? null;
    }
}
`;
    if (r() < 0.6)
      f[`tests/${cap(m.domain)}/${t}Test.php`] = `<?php

declare(strict_types=1);

namespace ${ns}\\Tests\\${cap(m.domain)};

use PHPUnit\\Framework\\TestCase;
use ${ns}\\${cap(m.domain)}\\${t};

final class ${t}Test extends TestCase
{
    public function testFindsWhatWasAdded(): void
    {
        $store = new ${t}();
        $id = $store->add(['${m.fields[0]}' => 1]);
        self::assertSame(['${m.fields[0]}' => 1], $store->find($id));
    }
}
`;
  }
  return f;
};

const csharp: Stack = (r, name, mods) => {
  const ns = cap(camel(name.replace(/-/g, '_')));
  const f: Files = {
    [`${ns}.csproj`]: `<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup>\n    <TargetFramework>net8.0</TargetFramework>\n    <Nullable>enable</Nullable>\n    <RestorePackagesWithLockFile>true</RestorePackagesWithLockFile>\n  </PropertyGroup>\n  <ItemGroup>\n    <PackageReference Include="Google.Protobuf" Version="3.27.${int(r, 0, 3)}" />\n  </ItemGroup>\n</Project>\n`,
    'packages.lock.json': JSON.stringify(
      {
        version: 1,
        dependencies: {
          'net8.0': {
            'Google.Protobuf': {
              type: 'Direct',
              requested: '[3.27.0, )',
              resolved: '3.27.0',
              contentHash: b64(r, 64),
            },
            xunit: {
              type: 'Direct',
              requested: '[2.8.1, )',
              resolved: '2.8.1',
              contentHash: b64(r, 64),
            },
          },
        },
      },
      null,
      2,
    ),
    'appsettings.json': JSON.stringify(
      {
        ConnectionStrings: {
          Default: 'Host=localhost;Database=app;Username=app;Password=${DB_PASSWORD}',
        },
        Logging: { LogLevel: { Default: 'Information' } },
      },
      null,
      2,
    ),
    'tests/Fixtures/seed.json.gz': gzipFixture(r),
  };
  for (const m of mods) {
    const t = cap(camel(`${m.domain}_${m.entity}`));
    f[`src/${cap(m.domain)}/${t}.cs`] = `using System.Collections.Generic;

namespace ${ns}.${cap(m.domain)};

public sealed record ${t}(${m.fields.map((x) => `${x.includes('at') || x === 'name' ? 'string?' : 'long?'} ${cap(camel(x))}`).join(', ')});

public sealed class ${t}Store
{
    private readonly Dictionary<long, ${t}> _rows = new();

    public long Add(${t} row)
    {
        var id = _rows.Count + ${m.n}L;
        _rows[id] = row;
        return id;
    }

    public ${t}? Find(long id) => _rows.TryGetValue(id, out var row) ? row : null;
}
`;
    if (r() < 0.6)
      f[`tests/${cap(m.domain)}/${t}Tests.cs`] = `using ${ns}.${cap(m.domain)};
using Xunit;

namespace ${ns}.Tests.${cap(m.domain)};

public class ${t}Tests
{
    [Fact]
    public void FindsWhatWasAdded()
    {
        var store = new ${t}Store();
        var id = store.Add(new ${t}(${m.fields.map(() => 'null').join(', ')}));
        Assert.NotNull(store.Find(id));
    }
}
`;
  }
  return f;
};

const cpp: Stack = (r, name, mods) => {
  const f: Files = {
    'CMakeLists.txt': `cmake_minimum_required(VERSION 3.20)\nproject(${name.replace(/-/g, '_')} LANGUAGES C CXX)\nset(CMAKE_CXX_STANDARD 20)\nfile(GLOB_RECURSE SOURCES src/*.cpp src/*.c)\nadd_library(core \${SOURCES})\ntarget_include_directories(core PUBLIC include)\nenable_testing()\n`,
    'vcpkg.json': JSON.stringify(
      { name, version: '1.0.0', dependencies: ['fmt', 'gtest'] },
      null,
      2,
    ),
    'tests/data/frames.bin.gz': gzipFixture(r),
  };
  for (const m of mods) {
    const t = cap(camel(`${m.domain}_${m.entity}`));
    const c = r() < 0.3;
    if (c) {
      f[`include/${m.domain}/${m.entity}.h`] =
        `#ifndef ${m.domain.toUpperCase()}_${m.entity.toUpperCase()}_H\n#define ${m.domain.toUpperCase()}_${m.entity.toUpperCase()}_H\n\n#include <stddef.h>\n\ntypedef struct ${m.domain}_${m.entity} {\n${m.fields.map((x) => `    long ${x};`).join('\n')}\n} ${m.domain}_${m.entity}_t;\n\nsize_t ${m.domain}_${m.entity}_count(const ${m.domain}_${m.entity}_t *rows, size_t n, long min_${m.fields[0]});\n\n#endif\n`;
      f[`src/${m.domain}/${m.entity}.c`] =
        `#include "${m.domain}/${m.entity}.h"\n\nsize_t ${m.domain}_${m.entity}_count(const ${m.domain}_${m.entity}_t *rows, size_t n, long min_${m.fields[0]})\n{\n    size_t hits = 0;\n    for (size_t i = 0; i < n; i++) {\n        if (rows[i].${m.fields[0]} >= min_${m.fields[0]})\n            hits++;\n    }\n    return hits > ${m.n} ? ${m.n} : hits;\n}\n`;
    } else {
      f[`include/${m.domain}/${m.entity}.hpp`] =
        `#pragma once\n#include <cstdint>\n#include <optional>\n#include <string>\n#include <unordered_map>\n\nnamespace ${m.domain} {\n\nstruct ${t} {\n${m.fields.map((x) => `    ${x.includes('at') || x === 'name' ? 'std::string' : 'std::int64_t'} ${x}{};`).join('\n')}\n};\n\nclass ${t}Store {\n public:\n    std::int64_t add(${t} row);\n    std::optional<${t}> find(std::int64_t id) const;\n\n private:\n    std::unordered_map<std::int64_t, ${t}> rows_;\n};\n\n}  // namespace ${m.domain}\n`;
      f[`src/${m.domain}/${m.entity}.cpp`] =
        `#include "${m.domain}/${m.entity}.hpp"\n\nnamespace ${m.domain} {\n\nstd::int64_t ${t}Store::add(${t} row) {\n    const auto id = static_cast<std::int64_t>(rows_.size()) + ${m.n};\n    rows_.emplace(id, std::move(row));\n    return id;\n}\n\nstd::optional<${t}> ${t}Store::find(std::int64_t id) const {\n    if (auto it = rows_.find(id); it != rows_.end()) return it->second;\n    return std::nullopt;\n}\n\n}  // namespace ${m.domain}\n`;
    }
  }
  return f;
};

const STACKS: Record<string, { stack: Stack; run: string }> = {
  node: { stack: node, run: 'npm ci && npm start' },
  python: { stack: python, run: 'pip install -e . && pytest' },
  go: { stack: go, run: 'go test ./...' },
  rust: { stack: rust, run: 'cargo test' },
  java: { stack: java, run: 'mvn test' },
  ruby: { stack: ruby, run: 'bundle install && bundle exec rspec' },
  php: { stack: php, run: 'composer install && vendor/bin/phpunit' },
  csharp: { stack: csharp, run: 'dotnet test' },
  cpp: { stack: cpp, run: 'cmake -B build && cmake --build build && ctest --test-dir build' },
};

/** Module counts giving projects from about 20 to about 300 files. */
const SIZES = [10, 16, 25, 40, 60, 90, 120];

/** The `i`-th generated project of a stack. */
export function benignProject(lang: string, i: number): Files {
  const { stack, run } = STACKS[lang]!;
  const r = prng(`${lang}/${i}`);
  const name = `${pick(r, DOMAINS)}-${pick(r, ENTITIES)}-${lang}-${i}`;
  const mods = modules(r, SIZES[i % SIZES.length]!);
  const files: Files = {
    'README.md': readme(r, name, run),
    LICENSE: `MIT License\n\nCopyright (c) 2025 ${cap(name)} authors\n`,
    '.gitignore': 'build/\ndist/\n.env\n*.log\n',
    '.env.example': envExample(r),
    ...stack(r, name, mods),
  };
  if (i % 3 === 0) files['docs/local-chain.md'] = hardhatDocs();
  if (i % 2 === 1)
    files[`docs/design/${mods[0]!.domain}.md`] = readme(r, `${mods[0]!.domain} design`, run);
  return files;
}

const compressionOf = (i: number): CorpusCompression => (i % 2 ? 'tar.gz' : 'zip');

export const cases: CorpusCase[] = [
  ...Object.keys(STACKS).flatMap((lang) =>
    SIZES.map((_, i) => ({
      name: `benign-${lang}/project-${i}-${compressionOf(i)}`,
      family: `benign-${lang}`,
      hostile: false,
      compression: compressionOf(i),
      build: () => pack(compressionOf(i), benignProject(lang, i)),
    })),
  ),
  // The hand-written projects of the older corpus, in both compressions.
  ...Object.entries(BENIGN_PROJECTS).flatMap(([key, files]) =>
    (['zip', 'tar.gz'] as const).map((c) => ({
      name: `benign-handwritten/${key}-${c}`,
      family: 'benign-handwritten',
      hostile: false,
      compression: c,
      build: () => pack(c, files),
    })),
  ),
];
