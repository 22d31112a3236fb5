// SPEC.md's tables as data, so the OpenAPI document can be checked against
// them. Keep in step with SPEC.md parts 2, 4 and 7.

export interface SpecEndpoint {
  method: 'get' | 'post' | 'delete';
  path: string;
  auth: boolean;
  /** The success status and its schema name (null: described inline). */
  success: [number, string | null];
  /** Error statuses and their part-7 shape. */
  errors: Array<[number, 'Error' | 'LimitError' | 'CancelWindowError']>;
  request?: string;
  query?: string[];
}

export const SPEC_ENDPOINTS: SpecEndpoint[] = [
  { method: 'get', path: '/', auth: false, success: [200, null], errors: [] },
  { method: 'get', path: '/.well-known/api-catalog', auth: false, success: [200, null], errors: [] },
  { method: 'get', path: '/.well-known/oauth-protected-resource', auth: false, success: [200, null], errors: [] },
  { method: 'get', path: '/openapi.json', auth: false, success: [200, null], errors: [] },
  {
    method: 'post',
    path: '/register',
    auth: false,
    success: [201, 'MessageResponse'],
    errors: [
      [400, 'Error'],
      [409, 'Error'],
      [500, 'Error'],
    ],
    request: 'RegisterRequest',
  },
  { method: 'post', path: '/login', auth: false, success: [200, 'User'], errors: [[401, 'Error']], request: 'LoginRequest' },
  { method: 'post', path: '/logout', auth: false, success: [200, 'MessageResponse'], errors: [] },
  {
    method: 'get',
    path: '/me',
    auth: true,
    success: [200, 'User'],
    errors: [
      [401, 'Error'],
      [404, 'Error'],
    ],
  },
  { method: 'get', path: '/leaderboard', auth: false, success: [200, 'LeaderboardUser[]'], errors: [] },
  { method: 'get', path: '/portfolio', auth: true, success: [200, 'PortfolioBet[]'], errors: [[401, 'Error']] },
  {
    method: 'get',
    path: '/history',
    auth: true,
    success: [200, 'ClosedBet[]'],
    errors: [
      [401, 'Error'],
      [400, 'Error'],
    ],
    query: ['limit', 'offset'],
  },
  { method: 'get', path: '/feed', auth: true, success: [200, 'FeedItem[]'], errors: [[401, 'Error']] },
  { method: 'get', path: '/following', auth: true, success: [200, 'integer[]'], errors: [[401, 'Error']] },
  { method: 'get', path: '/users/search', auth: true, success: [200, 'PublicUser[]'], errors: [[401, 'Error']], query: ['q'] },
  {
    method: 'get',
    path: '/user/{user_id}/public',
    auth: false,
    success: [200, 'PublicProfileResponse'],
    errors: [
      [404, 'Error'],
      [400, 'Error'],
    ],
    query: ['limit', 'offset'],
  },
  {
    method: 'get',
    path: '/price/{ticker}',
    auth: true,
    success: [200, 'TickerPriceResponse'],
    errors: [
      [404, 'Error'],
      [401, 'Error'],
    ],
  },
  {
    method: 'post',
    path: '/bet/open',
    auth: true,
    success: [200, 'OpenBetResponse'],
    errors: [
      [400, 'Error'],
      [401, 'Error'],
      [403, 'LimitError'],
      [404, 'Error'],
    ],
    request: 'OpenBetRequest',
  },
  {
    method: 'post',
    path: '/bet/close',
    auth: true,
    success: [200, 'CloseBetResponse'],
    errors: [
      [401, 'Error'],
      [400, 'Error'],
      [500, 'Error'],
    ],
    request: 'CloseBetRequest',
  },
  {
    method: 'delete',
    path: '/bet/{bet_id}',
    auth: true,
    success: [200, 'CancelBetResponse'],
    errors: [
      [401, 'Error'],
      [400, 'Error'],
      [403, 'CancelWindowError'],
      [404, 'Error'],
    ],
  },
  {
    method: 'post',
    path: '/follow',
    auth: true,
    success: [200, 'FollowSuccessResponse'],
    errors: [
      [401, 'Error'],
      [403, 'LimitError'],
    ],
    request: 'FollowRequest',
  },
  { method: 'get', path: '/api/pay/plans', auth: false, success: [200, 'PlansResponse'], errors: [[500, 'Error']] },
  {
    method: 'post',
    path: '/api/pay/checkout',
    auth: true,
    success: [200, 'UrlResponse'],
    errors: [
      [401, 'Error'],
      [409, 'Error'],
      [500, 'Error'],
    ],
    request: 'CheckoutRequest',
  },
  {
    method: 'post',
    path: '/api/pay/portal',
    auth: true,
    success: [200, 'UrlResponse'],
    errors: [
      [401, 'Error'],
      [400, 'Error'],
      [500, 'Error'],
    ],
  },
  { method: 'get', path: '/chat/status', auth: true, success: [200, 'ChatStatusResponse'], errors: [[401, 'Error']] },
  { method: 'post', path: '/chat/link-code', auth: true, success: [200, 'ChatLinkCodeResponse'], errors: [[401, 'Error']] },
  { method: 'post', path: '/chat/unlink', auth: true, success: [200, 'ChatUnlinkResponse'], errors: [[401, 'Error']] },
];

type FieldType = 'integer' | 'number' | 'string' | 'boolean' | 'array' | 'object';
export interface SpecField {
  type: FieldType;
  required: boolean;
  nullable?: boolean;
  format?: string;
  enum?: string[];
  ref?: string;
}
export interface SpecShape {
  /** true: no additional properties; false: allowed; null: SPEC states no rule (we close them). */
  closed: boolean | null;
  fields: Record<string, SpecField>;
}

const req = (type: FieldType, extra: Partial<SpecField> = {}): SpecField => ({ type, required: true, ...extra });
const opt = (type: FieldType, extra: Partial<SpecField> = {}): SpecField => ({ type, required: false, ...extra });
const DIR = ['LONG', 'SHORT'];

const closedBetFields = {
  id: req('integer'),
  ticker: req('string'),
  direction: req('string', { enum: DIR }),
  entry_price: req('number'),
  exit_price: req('number'),
  percentage_gain: req('number'),
  exit_date: req('string', { format: 'date-time' }),
  entry_date: req('string', { format: 'date-time' }),
};

export const SPEC_SHAPES: Record<string, SpecShape> = {
  User: {
    closed: true,
    fields: {
      id: req('integer'),
      username: req('string'),
      email: req('string'),
      follow_capacity: req('integer'),
      bet_capacity: req('integer'),
      pay_subscription_id: opt('string', { nullable: true }),
    },
  },
  PublicUser: { closed: true, fields: { id: req('integer'), username: req('string') } },
  LeaderboardUser: {
    closed: true,
    fields: { id: req('integer'), username: req('string'), total_score: req('number'), total_trades: req('integer') },
  },
  PortfolioBet: {
    closed: true,
    fields: {
      id: req('integer'),
      ticker: req('string'),
      direction: req('string', { enum: DIR }),
      entry: req('number'),
      current: req('number'),
      unrealized_gain: req('number'),
      target_date: req('string', { nullable: true, format: 'date' }),
      entry_date: req('string', { nullable: true, format: 'date-time' }),
      cancelable_until: req('string', { nullable: true, format: 'date-time' }),
    },
  },
  ClosedBet: { closed: false, fields: closedBetFields },
  FeedItem: {
    closed: false,
    fields: {
      ...closedBetFields,
      user_id: req('integer'),
      username: req('string'),
      status: req('string', { enum: ['OPEN', 'CLOSED', 'CANCELLED'] }),
    },
  },
  RegisterRequest: {
    closed: null,
    fields: { username: req('string'), email: req('string', { format: 'email' }), password: req('string') },
  },
  LoginRequest: { closed: null, fields: { email: req('string', { format: 'email' }), password: req('string') } },
  OpenBetRequest: {
    closed: null,
    fields: { ticker: req('string'), direction: req('string', { enum: DIR }), target_date: opt('string', { format: 'date' }) },
  },
  OpenBetResponse: { closed: null, fields: { message: req('string'), bet_id: req('integer'), entry_price: req('number') } },
  CloseBetRequest: { closed: true, fields: { bet_id: req('integer') } },
  CloseBetResponse: {
    closed: null,
    fields: { message: req('string'), ticker: req('string'), gain_percent: req('number'), exit_price: req('number') },
  },
  CancelBetResponse: { closed: null, fields: { message: req('string'), bet_id: req('integer') } },
  FollowRequest: {
    closed: null,
    fields: { followed_id: req('integer'), action: req('string', { enum: ['follow', 'unfollow'] }) },
  },
  FollowSuccessResponse: { closed: null, fields: { success: opt('boolean') } },
  MessageResponse: { closed: null, fields: { message: opt('string') } },
  TickerPriceResponse: { closed: null, fields: { ticker: req('string'), price: req('number') } },
  PublicProfileResponse: {
    closed: null,
    fields: {
      user: req('object', { ref: 'PublicUser' }),
      portfolio: req('array', { ref: 'PortfolioBet' }),
      history: req('array', { ref: 'ClosedBet' }),
      history_total: req('integer'),
    },
  },
  StripePlan: {
    closed: null,
    fields: {
      price_id: req('string'),
      amount: req('integer'),
      currency: req('string'),
      interval: req('string', { enum: ['day', 'week', 'month', 'year'] }),
      extra_slots: req('integer'),
      extra_bets: req('integer'),
      name: req('string', { nullable: true }),
      description: req('string', { nullable: true }),
    },
  },
  PlansResponse: { closed: null, fields: { plans: opt('array', { ref: 'StripePlan' }) } },
  CheckoutRequest: { closed: true, fields: { price_id: req('string') } },
  UrlResponse: { closed: null, fields: { url: opt('string', { format: 'uri' }) } },
  ChatStatusResponse: { closed: null, fields: { linked: opt('boolean') } },
  ChatLinkCodeResponse: { closed: null, fields: { code: req('string'), deep_link: req('string', { nullable: true, format: 'uri' }) } },
  ChatUnlinkResponse: { closed: null, fields: { success: opt('boolean') } },
  Error: { closed: true, fields: { error: req('string') } },
  LimitError: { closed: null, fields: { error: req('string', { enum: ['LIMIT_REACHED'] }), message: req('string'), limit: req('integer') } },
  CancelWindowError: { closed: null, fields: { error: req('string'), message: req('string') } },
};
