import { useEffect, useMemo, useState } from 'react';
import { Bar, BarChart, Tooltip, XAxis, YAxis } from 'recharts';
import { fetchCustomers, fetchMonthlyRevenue, type Customer } from './api';

type SortKey = keyof Customer;
const PAGE_SIZE = 10;
const PAGES = ['Overview', 'Customers', 'Settings'] as const;

function useDarkMode(): [boolean, (v: boolean) => void] {
  const [dark, setDark] = useState(() => localStorage.getItem('theme') === 'dark');
  useEffect(() => {
    document.documentElement.classList.toggle('dark', dark);
    localStorage.setItem('theme', dark ? 'dark' : 'light');
  }, [dark]);
  return [dark, setDark];
}

function CustomerTable({ rows }: { rows: Customer[] }) {
  const [sort, setSort] = useState<{ key: SortKey; asc: boolean }>({ key: 'id', asc: true });
  const [page, setPage] = useState(0);
  const sorted = useMemo(
    () =>
      [...rows].sort((a, b) => {
        const cmp = a[sort.key] < b[sort.key] ? -1 : a[sort.key] > b[sort.key] ? 1 : 0;
        return sort.asc ? cmp : -cmp;
      }),
    [rows, sort],
  );
  const pages = Math.ceil(sorted.length / PAGE_SIZE);
  const visible = sorted.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
  const header = (key: SortKey, label: string) => (
    <th className="cursor-pointer px-3 py-2 text-left" onClick={() => setSort({ key, asc: sort.key === key ? !sort.asc : true })}>
      {label} {sort.key === key ? (sort.asc ? '▲' : '▼') : ''}
    </th>
  );
  return (
    <div>
      <table className="w-full text-sm">
        <thead>
          <tr>{header('name', 'Name')}{header('plan', 'Plan')}{header('revenue', 'Revenue')}{header('joined', 'Joined')}</tr>
        </thead>
        <tbody>
          {visible.map((c) => (
            <tr key={c.id} className="border-t dark:border-gray-700">
              <td className="px-3 py-2">{c.name}</td>
              <td className="px-3 py-2">{c.plan}</td>
              <td className="px-3 py-2">${c.revenue.toLocaleString()}</td>
              <td className="px-3 py-2">{c.joined}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="mt-3 flex gap-2">
        <button disabled={page === 0} onClick={() => setPage(page - 1)}>Previous</button>
        <span>Page {page + 1} of {pages}</span>
        <button disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>Next</button>
      </div>
    </div>
  );
}

export default function App() {
  const [dark, setDark] = useDarkMode();
  const [current, setCurrent] = useState<(typeof PAGES)[number]>('Overview');
  const [customers, setCustomers] = useState<Customer[]>([]);
  const [revenue, setRevenue] = useState<Array<{ month: string; revenue: number }>>([]);
  useEffect(() => {
    fetchCustomers().then(setCustomers);
    fetchMonthlyRevenue().then(setRevenue);
  }, []);
  return (
    <div className="flex min-h-screen bg-white text-gray-900 dark:bg-gray-900 dark:text-gray-100">
      <nav className="w-56 border-r p-4 dark:border-gray-700">
        {PAGES.map((p) => (
          <button key={p} className={`block w-full py-2 text-left ${p === current ? 'font-bold' : ''}`} onClick={() => setCurrent(p)}>
            {p}
          </button>
        ))}
        <label className="mt-6 block">
          <input type="checkbox" checked={dark} onChange={(e) => setDark(e.target.checked)} /> Dark mode
        </label>
      </nav>
      <main className="flex-1 p-6">
        {current === 'Overview' && (
          <BarChart width={600} height={280} data={revenue}>
            <XAxis dataKey="month" />
            <YAxis />
            <Tooltip />
            <Bar dataKey="revenue" fill="#6366f1" />
          </BarChart>
        )}
        {current === 'Customers' && <CustomerTable rows={customers} />}
        {current === 'Settings' && <p>Settings go here.</p>}
      </main>
    </div>
  );
}
