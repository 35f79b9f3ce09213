import pytest
from httpx import ASGITransport, AsyncClient

from app.main import Base, app, engine

@pytest.fixture
async def client():
    async with engine.begin() as conn:
        await conn.run_sync(Base.metadata.drop_all)
        await conn.run_sync(Base.metadata.create_all)
    async with AsyncClient(transport=ASGITransport(app=app), base_url="http://test") as c:
        yield c

async def test_create_then_page(client):
    for n in range(3):
        assert (await client.post("/items", json={"name": f"item {n}"})).status_code == 201
    page = (await client.get("/items", params={"size": 2})).json()
    assert page["total"] == 3 and len(page["items"]) == 2

async def test_missing_item_is_404(client):
    assert (await client.get("/items/999")).status_code == 404
