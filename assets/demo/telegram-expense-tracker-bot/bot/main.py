"""Telegram bot that records expenses from chat messages and sends monthly summaries."""
import asyncio
import io
import os
import re
import sqlite3
from datetime import date

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from aiogram import Bot, Dispatcher, F
from aiogram.filters import Command
from aiogram.types import BufferedInputFile, Message

db = sqlite3.connect(os.environ.get("DB_PATH", "expenses.sqlite"))
db.execute("create table if not exists expenses (user_id int, amount real, category text, note text, day text)")
CATEGORIES = {"food": ["lunch", "dinner", "coffee", "groceries", "pizza"],
              "transport": ["taxi", "bus", "train", "fuel", "uber"],
              "home": ["rent", "electricity", "internet", "water"],
              "fun": ["cinema", "concert", "game", "bar"]}
EXPENSE = re.compile(r"^\s*(\d+(?:[.,]\d{1,2})?)\s+(.+)$")

def categorise(note: str) -> str:
    words = note.lower().split()
    for category, keywords in CATEGORIES.items():
        if any(k in words for k in keywords):
            return category
    return "other"

def month_summary(user_id: int, month: str) -> dict[str, float]:
    rows = db.execute("select category, sum(amount) from expenses where user_id = ? and substr(day, 1, 7) = ? "
                      "group by category order by 2 desc", (user_id, month))
    return {c: round(a, 2) for c, a in rows}

dp = Dispatcher()

@dp.message(Command("month"))
async def month(message: Message):
    summary = month_summary(message.from_user.id, date.today().isoformat()[:7])
    if not summary:
        await message.answer("No expenses this month yet.")
        return
    fig, ax = plt.subplots(figsize=(4, 4))
    ax.pie(summary.values(), labels=summary.keys(), autopct="%1.0f%%")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    text = "\n".join(f"{c}: {a:.2f}" for c, a in summary.items()) + f"\ntotal: {sum(summary.values()):.2f}"
    await message.answer_photo(BufferedInputFile(buf.getvalue(), "month.png"), caption=text)

@dp.message(F.text.regexp(EXPENSE))
async def record(message: Message):
    amount, note = EXPENSE.match(message.text).groups()
    category = categorise(note)
    db.execute("insert into expenses values (?, ?, ?, ?, ?)",
               (message.from_user.id, float(amount.replace(",", ".")), category, note, date.today().isoformat()))
    db.commit()
    await message.answer(f"Recorded {amount} for {note} ({category}).")

async def main() -> None:
    await dp.start_polling(Bot(os.environ["TELEGRAM_TOKEN"]))

if __name__ == "__main__":
    asyncio.run(main())
