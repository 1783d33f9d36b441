// The resolver bundle (`browserflow_cdp::injected::RESOLVE_JS`): the resolve function, with the
// modules the recorder, the replayer's checks and the names conformance test read through it.

import * as list from '../list';
import * as reads from '../reads';
import * as repeat from '../repeat';
import { resolve } from '../resolve';
import * as roles from '../roles';
import * as shadow from '../shadow';
import * as states from '../states';
import * as visibility from '../visibility';

export type Resolver = typeof resolve & {
  roles: typeof roles;
  states: typeof states;
  shadow: typeof shadow;
  repeat: typeof repeat;
  list: typeof list;
  reads: typeof reads;
  visibility: typeof visibility;
};

const resolver: Resolver = Object.assign(resolve, { roles, states, shadow, repeat, list, reads, visibility });
export default resolver;
