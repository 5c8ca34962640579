import { resolve } from 'node:path';
import * as A from '../packages/andersen/dist/index.js';
import { prepareProgram } from '../packages/andersen/src/gpu/prepare.ts';
