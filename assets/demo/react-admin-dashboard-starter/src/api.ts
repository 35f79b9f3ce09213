export interface Customer {
  id: number;
  name: string;
  plan: 'free' | 'pro' | 'team';
  revenue: number;
  joined: string;
}

const PLANS: Customer['plan'][] = ['free', 'pro', 'team'];

/** Mock REST API: deterministic customers and monthly revenue, with latency like a real backend. */
export async function fetchCustomers(): Promise<Customer[]> {
  await new Promise((r) => setTimeout(r, 150));
  return Array.from({ length: 87 }, (_, i) => ({
    id: i + 1,
    name: `Customer ${String(i + 1).padStart(3, '0')}`,
    plan: PLANS[i % 3]!,
    revenue: Math.round(((i * 7919) % 5000) + 100),
    joined: new Date(2024, i % 12, (i % 27) + 1).toISOString().slice(0, 10),
  }));
}

export async function fetchMonthlyRevenue(): Promise<Array<{ month: string; revenue: number }>> {
  await new Promise((r) => setTimeout(r, 100));
  return ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun'].map((month, i) => ({ month, revenue: 12000 + i * 1850 }));
}
