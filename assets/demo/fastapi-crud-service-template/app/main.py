"""CRUD service skeleton: items with pagination, async SQLAlchemy, OpenAPI docs."""
import os
from collections.abc import AsyncIterator

from fastapi import Depends, FastAPI, HTTPException, Query
from pydantic import BaseModel, ConfigDict
from sqlalchemy import String, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

engine = create_async_engine(os.environ.get("DATABASE_URL", "postgresql+asyncpg://localhost/app"))
Session = async_sessionmaker(engine, expire_on_commit=False)

class Base(DeclarativeBase):
    pass

class Item(Base):
    __tablename__ = "items"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(String(2000))

class ItemIn(BaseModel):
    name: str
    description: str | None = None

class ItemOut(ItemIn):
    model_config = ConfigDict(from_attributes=True)
    id: int

class Page(BaseModel):
    items: list[ItemOut]
    total: int
    page: int
    size: int

async def session() -> AsyncIterator[AsyncSession]:
    async with Session() as s:
        yield s

app = FastAPI(title="CRUD service")

@app.get("/items", response_model=Page)
async def list_items(page: int = Query(1, ge=1), size: int = Query(20, ge=1, le=100),
                     db: AsyncSession = Depends(session)):
    total = await db.scalar(select(func.count()).select_from(Item))
    rows = await db.scalars(select(Item).order_by(Item.id).offset((page - 1) * size).limit(size))
    return Page(items=list(rows), total=total or 0, page=page, size=size)

@app.post("/items", response_model=ItemOut, status_code=201)
async def create_item(data: ItemIn, db: AsyncSession = Depends(session)):
    item = Item(**data.model_dump())
    db.add(item)
    await db.commit()
    return item

async def _get(db: AsyncSession, item_id: int) -> Item:
    item = await db.get(Item, item_id)
    if item is None:
        raise HTTPException(404, "item not found")
    return item

@app.get("/items/{item_id}", response_model=ItemOut)
async def read_item(item_id: int, db: AsyncSession = Depends(session)):
    return await _get(db, item_id)

@app.put("/items/{item_id}", response_model=ItemOut)
async def update_item(item_id: int, data: ItemIn, db: AsyncSession = Depends(session)):
    item = await _get(db, item_id)
    for key, value in data.model_dump().items():
        setattr(item, key, value)
    await db.commit()
    return item

@app.delete("/items/{item_id}", status_code=204)
async def delete_item(item_id: int, db: AsyncSession = Depends(session)):
    await db.delete(await _get(db, item_id))
    await db.commit()
