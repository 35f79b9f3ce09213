"""Async weather forecast client with caching, retries and unit conversion."""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import datetime

import httpx

@dataclass(frozen=True)
class HourlyForecast:
    time: datetime
    temperature_c: float
    precipitation_mm: float
    wind_kmh: float

    @property
    def temperature_f(self) -> float:
        return celsius_to_fahrenheit(self.temperature_c)

def celsius_to_fahrenheit(c: float) -> float:
    return round(c * 9 / 5 + 32, 1)

def kmh_to_mph(kmh: float) -> float:
    return round(kmh / 1.609344, 1)

class WeatherClient:
    def __init__(self, base_url: str = "https://api.open-meteo.com/v1", ttl: float = 600, retries: int = 3):
        self._http = httpx.AsyncClient(base_url=base_url, timeout=10)
        self._ttl = ttl
        self._retries = retries
        self._cache: dict[tuple, tuple[float, list[HourlyForecast]]] = {}

    async def _get(self, path: str, params: dict) -> dict:
        for attempt in range(self._retries):
            try:
                res = await self._http.get(path, params=params)
                if res.status_code < 500:
                    res.raise_for_status()
                    return res.json()
            except httpx.TransportError:
                if attempt == self._retries - 1:
                    raise
            await asyncio.sleep(0.5 * 2 ** attempt)
        raise RuntimeError(f"{path}: server kept failing")

    async def hourly(self, lat: float, lon: float, hours: int = 24) -> list[HourlyForecast]:
        key = (round(lat, 2), round(lon, 2), hours)
        cached = self._cache.get(key)
        if cached and time.monotonic() - cached[0] < self._ttl:
            return cached[1]
        data = await self._get("/forecast", {
            "latitude": lat, "longitude": lon, "forecast_hours": hours,
            "hourly": "temperature_2m,precipitation,wind_speed_10m"})
        h = data["hourly"]
        result = [HourlyForecast(datetime.fromisoformat(t), temp, rain, wind)
                  for t, temp, rain, wind in zip(h["time"], h["temperature_2m"], h["precipitation"], h["wind_speed_10m"])]
        self._cache[key] = (time.monotonic(), result)
        return result

    async def will_it_rain(self, lat: float, lon: float, threshold_mm: float = 0.2) -> bool:
        return any(f.precipitation_mm >= threshold_mm for f in await self.hourly(lat, lon))

    async def aclose(self) -> None:
        await self._http.aclose()
