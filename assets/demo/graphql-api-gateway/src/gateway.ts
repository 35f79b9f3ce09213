import { ApolloGateway, IntrospectAndCompose, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { GraphQLError } from 'graphql';
import { LRUCache } from 'lru-cache';
import { queryCost } from './cost.js';

interface Context {
  role: 'anonymous' | 'user' | 'admin';
  userId?: string;
}

const MAX_COST = Number(process.env.MAX_QUERY_COST ?? 1000);
/** Field → roles allowed to read it; fields not listed are public. */
const FIELD_RULES: Record<string, Context['role'][]> = {
  'User.email': ['user', 'admin'],
  'Order.paymentDetails': ['admin'],
  'Query.allUsers': ['admin'],
};

const subgraphs = (process.env.SUBGRAPHS ?? '').split(',').filter(Boolean).map((pair) => {
  const [name, url] = pair.split('=');
  return { name: name!, url: url! };
});

const gateway = new ApolloGateway({
  supergraphSdl: new IntrospectAndCompose({ subgraphs }),
  buildService: ({ url }) =>
    new RemoteGraphQLDataSource<Context>({
      url,
      willSendRequest({ request, context }) {
        request.http?.headers.set('x-user-role', context.role);
        if (context.userId) request.http?.headers.set('x-user-id', context.userId);
      },
    }),
});

const cache = new LRUCache<string, object>({ max: 5000, ttl: 30_000 });

const server = new ApolloServer<Context>({
  gateway,
  plugins: [
    {
      async requestDidStart() {
        return {
          async didResolveOperation({ document, contextValue }) {
            const cost = queryCost(document);
            if (cost > MAX_COST)
              throw new GraphQLError(`query cost ${cost} exceeds ${MAX_COST}`, { extensions: { code: 'QUERY_TOO_EXPENSIVE' } });
            void contextValue;
          },
          async executionDidStart() {
            return {
              willResolveField({ info, contextValue }) {
                const allowed = FIELD_RULES[`${info.parentType.name}.${info.fieldName}`];
                if (allowed && !allowed.includes(contextValue.role))
                  throw new GraphQLError(`not allowed to read ${info.parentType.name}.${info.fieldName}`, { extensions: { code: 'FORBIDDEN' } });
              },
            };
          },
          async willSendResponse({ request, response, contextValue }) {
            if (contextValue.role === 'anonymous' && response.body.kind === 'single' && !response.body.singleResult.errors)
              cache.set(JSON.stringify([request.query, request.variables]), response.body.singleResult);
          },
        };
      },
    },
  ],
});

const { url } = await startStandaloneServer(server, {
  listen: { port: Number(process.env.PORT ?? 4000) },
  context: async ({ req }) => {
    const role = (req.headers['x-role'] as Context['role']) ?? 'anonymous';
    return { role, userId: req.headers['x-user-id'] as string | undefined };
  },
});
console.log(`gateway ready at ${url}`);
