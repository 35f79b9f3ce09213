"""Store text embeddings in PostgreSQL (pgvector) and answer nearest-neighbour queries."""
import json
import os

import psycopg
from fastapi import FastAPI
from pgvector.psycopg import register_vector
from pydantic import BaseModel, Field
from sentence_transformers import SentenceTransformer

MODEL = SentenceTransformer(os.environ.get("EMBEDDING_MODEL", "all-MiniLM-L6-v2"))
DIMS = MODEL.get_sentence_embedding_dimension()
conn = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True)
conn.execute("create extension if not exists vector")
register_vector(conn)
conn.execute(f"""create table if not exists documents (
    id bigserial primary key, text text not null, metadata jsonb not null default '{{}}',
    embedding vector({DIMS}) not null)""")
conn.execute("create index if not exists documents_hnsw on documents using hnsw (embedding vector_cosine_ops)")

app = FastAPI(title="vector search")

class Document(BaseModel):
    text: str
    metadata: dict[str, str] = Field(default_factory=dict)

class Query(BaseModel):
    question: str
    filters: dict[str, str] = Field(default_factory=dict)
    limit: int = Field(5, ge=1, le=50)

@app.post("/documents", status_code=201)
def add_documents(docs: list[Document]):
    vectors = MODEL.encode([d.text for d in docs], normalize_embeddings=True)
    with conn.cursor() as cur:
        cur.executemany("insert into documents (text, metadata, embedding) values (%s, %s, %s)",
                        [(d.text, json.dumps(d.metadata), v) for d, v in zip(docs, vectors)])
    return {"added": len(docs)}

@app.post("/search")
def search(q: Query):
    vector = MODEL.encode(q.question, normalize_embeddings=True)
    rows = conn.execute(
        """select id, text, metadata, 1 - (embedding <=> %s) as score from documents
           where metadata @> %s::jsonb order by embedding <=> %s limit %s""",
        (vector, json.dumps(q.filters), vector, q.limit)).fetchall()
    return [{"id": r[0], "text": r[1], "metadata": r[2], "score": round(float(r[3]), 4)} for r in rows]
