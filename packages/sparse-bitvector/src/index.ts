export * from './cpu/index';
export * from './gpu/index';
