import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  decodeDeployData,
  decodeFunctionData,
  encodeEventTopics,
  encodeFunctionResult,
  parseAbi,
  toFunctionSelector,
  erc6492SignatureValidatorAbi,
  erc6492SignatureValidatorByteCode,
  isAddressEqual,
  recoverAddress,
  type Hex,
} from 'viem';

const TOKEN_ABI = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
]);
const AUTHORIZATION_STATE = toFunctionSelector('authorizationState(address,bytes32)');
const AUTHORIZATION_USED = parseAbi([
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
]);

/** The USDC token on Base (the configured default): where `mine`d events come from by default. */
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

interface MinedEvent {
  payer: Hex;
  nonce: Hex;
  transaction: string;
  asset: string;
  block: bigint;
}

/** Seconds between two blocks of the fake chain (Base's): block n's time is the head's less the gap. */
export const FAKE_BLOCK_SECONDS = 2;

/** The token's `AuthorizationUsed` log as JSON-RPC returns it. */
function authorizationLog(e: MinedEvent, address: string, logIndex: number) {
  return {
    address,
    topics: encodeEventTopics({
      abi: AUTHORIZATION_USED,
      eventName: 'AuthorizationUsed',
      args: { authorizer: e.payer, nonce: e.nonce },
    }) as Hex[],
    data: '0x',
    blockNumber: `0x${e.block.toString(16)}`,
    blockHash: `0x${e.block.toString(16).padStart(64, '0')}`,
    transactionHash: e.transaction,
    transactionIndex: '0x0',
    logIndex: `0x${logIndex.toString(16)}`,
    removed: false,
  };
}

/** A minimal receipt as JSON-RPC returns it (what viem's getTransactionReceipt parses). */
function receipt(hash: string, status: 'success' | 'reverted', logs: unknown[]) {
  return {
    transactionHash: hash,
    transactionIndex: '0x0',
    blockHash: `0x${'1'.repeat(64)}`,
    blockNumber: '0x1',
    from: `0x${'2'.repeat(40)}`,
    to: `0x${'3'.repeat(40)}`,
    cumulativeGasUsed: '0x5208',
    gasUsed: '0x5208',
    effectiveGasPrice: '0x1',
    contractAddress: null,
    logs,
    logsBloom: `0x${'0'.repeat(512)}`,
    status: status === 'success' ? '0x1' : '0x0',
    type: '0x2',
  };
}

/** A block header as `eth_getBlockByNumber(tag, false)` returns it. */
function block(number: bigint, timestamp: number) {
  return {
    number: `0x${number.toString(16)}`,
    hash: `0x${number.toString(16).padStart(64, '0')}`,
    parentHash: `0x${(number > 0n ? number - 1n : 0n).toString(16).padStart(64, '0')}`,
    timestamp: `0x${timestamp.toString(16)}`,
    nonce: '0x0000000000000000',
    sha3Uncles: `0x${'0'.repeat(64)}`,
    logsBloom: `0x${'0'.repeat(512)}`,
    transactionsRoot: `0x${'0'.repeat(64)}`,
    stateRoot: `0x${'0'.repeat(64)}`,
    receiptsRoot: `0x${'0'.repeat(64)}`,
    miner: `0x${'0'.repeat(40)}`,
    difficulty: '0x0',
    totalDifficulty: '0x0',
    extraData: '0x',
    size: '0x220',
    gasLimit: '0x1c9c380',
    gasUsed: '0x0',
    baseFeePerGas: '0x1',
    mixHash: `0x${'0'.repeat(64)}`,
    transactions: [],
    uncles: [],
  };
}

/**
 * A loopback JSON-RPC node that knows a few single-owner smart accounts. It answers viem's
 * deployless ERC-6492 / ERC-1271 `eth_call` the way such an account's `isValidSignature` does:
 * valid when the owner's ECDSA signature recovers from the hash. It also plays the USDC token's
 * EIP-3009 record (`authorizationState`, the `AuthorizationUsed` events of `mine`d settlements)
 * and transaction receipts for reconciliation. Everything else is an RPC error.
 */
export interface FakeRpc {
  url: string;
  /** smart account address -> owner EOA */
  accounts: Map<string, string>;
  /** The token's used authorizations, as `payer:nonce` (lower-case): `authorizationState` reads it. */
  usedAuthorizations: Set<string>;
  /** Every `authorizationState` asked, as `payer:nonce` (lower-case), in order. */
  asked: string[];
  /** The block each `authorizationState` was read at (the eth_call's block tag or hex number). */
  askedAt: string[];
  /** Transaction receipts by hash; an absent hash has no receipt yet. */
  receipts: Map<string, 'success' | 'reverted'>;
  /** Every receipt asked for, by hash (lower-case), in order. */
  receiptsAsked: string[];
  /**
   * Records a settlement as the chain would: the authorization used, and its transaction's
   * receipt holding the token's `AuthorizationUsed` event (from `asset`, Base USDC by default),
   * in block `block` (default: the head's number).
   */
  mine(payer: string, nonce: string, transaction: string, asset?: string, block?: bigint): void;
  /** JSON-RPC methods this node does not have (answered -32601 method not found). */
  unsupported: Set<string>;
  /** `eth_getLogs` ranges asked, as [fromBlock, toBlock]. */
  logRanges: Array<[bigint, bigint]>;
  /** When set, `eth_getLogs` over more blocks than this is an error (as many providers answer). */
  maxLogRange?: bigint;
  /**
   * The head block (`eth_getBlockByNumber('latest')`, `eth_blockNumber`): its number (default 1)
   * and time in unix seconds (default: this process's clock when asked, a faked one included).
   * `unavailable`: the head cannot be read (an RPC error). Tests set it; `resetHead` restores it.
   */
  head: { number?: bigint; timestamp?: number; unavailable?: boolean };
  resetHead(): void;
  /** Head blocks served. */
  headsAsked: number;
  /** `eth_call`s answered. */
  calls: number;
  /** Every JSON-RPC request received, answered or not. */
  received: number;
  /** While true, requests are received (and counted) but never answered: a black-holed node. */
  blackhole: boolean;
  close(): Promise<void>;
}

export async function startFakeRpc(): Promise<FakeRpc> {
  const state: FakeRpc = {
    url: '',
    accounts: new Map(),
    usedAuthorizations: new Set(),
    asked: [],
    askedAt: [],
    receipts: new Map(),
    receiptsAsked: [],
    mine(payer, nonce, transaction, asset = BASE_USDC, block = headNumber()) {
      const key = `${payer.toLowerCase()}:${nonce.toLowerCase()}`;
      state.usedAuthorizations.add(key);
      state.receipts.set(transaction.toLowerCase(), 'success');
      events.push({ payer: payer as Hex, nonce: nonce as Hex, transaction, asset, block });
    },
    unsupported: new Set(),
    logRanges: [],
    head: {},
    resetHead() {
      state.head = {};
    },
    headsAsked: 0,
    calls: 0,
    received: 0,
    blackhole: false,
    close: async () => {},
  };
  const events: MinedEvent[] = [];
  const headNumber = () => state.head.number ?? 1n;
  const server: Server = createServer((req, res) => {
    // counted on arrival: a client that gives up before the body is read still reached the node
    state.received++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          id: number;
          method: string;
          params: unknown[];
        };
        if (state.blackhole) return;
        const reply = (body: Record<string, unknown>) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...body }));
        };
        if (state.unsupported.has(msg.method))
          return reply({ error: { code: -32601, message: 'the method does not exist' } });
        if (msg.method === 'eth_chainId') return reply({ result: '0x2105' });
        if (msg.method === 'eth_blockNumber') {
          if (state.head.unavailable) return reply({ error: { code: -32000, message: 'no head' } });
          return reply({ result: `0x${headNumber().toString(16)}` });
        }
        if (msg.method === 'eth_getBlockByNumber' && msg.params[0] === 'latest') {
          state.headsAsked++;
          if (state.head.unavailable) return reply({ error: { code: -32000, message: 'no head' } });
          const time = state.head.timestamp ?? Math.floor(Date.now() / 1000);
          return reply({ result: block(headNumber(), time) });
        }
        if (msg.method === 'eth_getBlockByNumber') {
          // an older block: one every FAKE_BLOCK_SECONDS before the head
          const n = BigInt(String(msg.params[0]));
          if (n > headNumber()) return reply({ result: null });
          const time = state.head.timestamp ?? Math.floor(Date.now() / 1000);
          return reply({
            result: block(n, time - Number(headNumber() - n) * FAKE_BLOCK_SECONDS),
          });
        }
        if (msg.method === 'eth_getCode') {
          // the smart accounts are deployed contracts; every other address is an EOA
          const address = String(msg.params[0]).toLowerCase();
          return reply({ result: state.accounts.has(address) ? '0x6080604052' : '0x' });
        }
        if (msg.method === 'eth_getLogs') {
          // The token's AuthorizationUsed events, filtered by the topics viem sends.
          const filter = msg.params[0] as {
            address: string;
            topics?: Array<string | null>;
            fromBlock?: string;
            toBlock?: string;
          };
          const from = filter.fromBlock ? BigInt(filter.fromBlock) : 0n;
          const to = filter.toBlock ? BigInt(filter.toBlock) : headNumber();
          state.logRanges.push([from, to]);
          if (state.maxLogRange !== undefined && to - from + 1n > state.maxLogRange)
            return reply({ error: { code: -32005, message: 'query exceeds max block range' } });
          const logs = events.flatMap((e, i) =>
            e.block >= from && e.block <= to ? [authorizationLog(e, filter.address, i)] : [],
          );
          const wanted = filter.topics ?? [];
          return reply({
            result: logs.filter((l) =>
              wanted.every((t, i) => t == null || t.toLowerCase() === l.topics[i]?.toLowerCase()),
            ),
          });
        }
        if (msg.method === 'eth_getTransactionReceipt') {
          const hash = String(msg.params[0]).toLowerCase();
          state.receiptsAsked.push(hash);
          const status = state.receipts.get(hash);
          if (!status) return reply({ result: null });
          const logs = events.flatMap((e, i) =>
            e.transaction.toLowerCase() === hash ? [authorizationLog(e, e.asset, i)] : [],
          );
          return reply({ result: receipt(hash, status, logs) });
        }
        if (msg.method !== 'eth_call')
          return reply({ error: { code: -32601, message: 'method not found' } });
        state.calls++;
        const { data } = msg.params[0] as { data: Hex };
        if (data.startsWith(AUTHORIZATION_STATE)) {
          const { args } = decodeFunctionData({ abi: TOKEN_ABI, data });
          const [payer, nonce] = args as [Hex, Hex];
          const key = `${payer.toLowerCase()}:${nonce.toLowerCase()}`;
          state.asked.push(key);
          state.askedAt.push(String(msg.params[1] ?? 'latest'));
          const used = state.usedAuthorizations.has(key);
          return reply({
            result: encodeFunctionResult({
              abi: TOKEN_ABI,
              functionName: 'authorizationState',
              result: used,
            }),
          });
        }
        try {
          const { args } = decodeDeployData({
            abi: erc6492SignatureValidatorAbi,
            bytecode: erc6492SignatureValidatorByteCode,
            data,
          });
          const [account, hash, signature] = args as [Hex, Hex, Hex];
          const owner = state.accounts.get(account.toLowerCase());
          let valid = false;
          if (owner) {
            try {
              valid = isAddressEqual(await recoverAddress({ hash, signature }), owner as Hex);
            } catch {
              valid = false;
            }
          }
          reply({ result: `0x${valid ? '1'.padStart(64, '0') : '0'.padStart(64, '0')}` });
        } catch {
          reply({ error: { code: 3, message: 'execution reverted' } });
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
