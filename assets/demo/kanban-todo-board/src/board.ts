import { defineStore } from 'pinia';

export interface Card {
  id: string;
  title: string;
  labels: string[];
  due?: string;
}
export interface Column {
  id: string;
  name: string;
  cards: Card[];
}

const STORAGE_KEY = 'kanban-board-v1';

function initial(): Column[] {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (saved) return JSON.parse(saved) as Column[];
  return ['To do', 'Doing', 'Done'].map((name) => ({ id: name.toLowerCase().replace(' ', '-'), name, cards: [] }));
}

export const useBoard = defineStore('board', {
  state: () => ({ columns: initial(), selected: null as string | null }),
  getters: {
    overdue: (s) => {
      const today = new Date().toISOString().slice(0, 10);
      return s.columns.flatMap((c) => c.cards).filter((c) => c.due !== undefined && c.due < today);
    },
  },
  actions: {
    save() {
      localStorage.setItem(STORAGE_KEY, JSON.stringify(this.columns));
    },
    addCard(columnId: string, title: string) {
      const column = this.columns.find((c) => c.id === columnId);
      if (!column || !title.trim()) return;
      column.cards.push({ id: crypto.randomUUID(), title: title.trim(), labels: [] });
      this.save();
    },
    moveCard(cardId: string, toColumn: string, toIndex: number) {
      const from = this.columns.find((c) => c.cards.some((k) => k.id === cardId));
      const to = this.columns.find((c) => c.id === toColumn);
      if (!from || !to) return;
      const [card] = from.cards.splice(from.cards.findIndex((k) => k.id === cardId), 1);
      to.cards.splice(Math.min(toIndex, to.cards.length), 0, card!);
      this.save();
    },
    toggleLabel(cardId: string, label: string) {
      const card = this.columns.flatMap((c) => c.cards).find((k) => k.id === cardId);
      if (!card) return;
      card.labels = card.labels.includes(label) ? card.labels.filter((l) => l !== label) : [...card.labels, label];
      this.save();
    },
    removeSelected() {
      for (const c of this.columns) c.cards = c.cards.filter((k) => k.id !== this.selected);
      this.selected = null;
      this.save();
    },
  },
});

/** Keyboard shortcuts: n adds a card to the first column, Delete removes the selected card. */
export function installShortcuts(board: ReturnType<typeof useBoard>, prompt: (q: string) => string | null) {
  window.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement) return;
    if (e.key === 'n') board.addCard(board.columns[0]!.id, prompt('New card') ?? '');
    if (e.key === 'Delete' && board.selected) board.removeSelected();
  });
}
