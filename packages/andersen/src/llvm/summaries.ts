/**
 * What the front end knows of functions the module calls but does not define: the C and C++
 * runtime's allocators, the string and memory functions, the callbacks the library makes. A
 * function in none of these tables is an unknown function (see `extract.ts`): it may return
 * anything and do anything to what it can reach.
 *
 * @module
 */

/** C library functions that return a new object (one abstract heap object per call site). */
export const LIBRARY_ALLOCATORS = new Set([
  'malloc',
  'calloc',
  'realloc',
  'reallocarray',
  'valloc',
  'pvalloc',
  'aligned_alloc',
  'memalign',
  'strdup',
  'strndup',
  'fopen',
  'fopen64',
  'freopen',
  'freopen64',
  'fdopen',
  'popen',
  'tmpfile',
  'tmpfile64',
  'opendir',
  '_Znwm',
  '_Znam',
  '_Znwj',
  '_Znaj',
  '_ZnwmSt11align_val_t',
  '_ZnamSt11align_val_t',
  '__cxa_allocate_exception',
  'mmap',
  'mmap64',
]);

/** Library functions that store a new object through their first argument (`getline(&line, &n, f)`). */
export const ALLOCATES_INTO_FIRST = new Set([
  'asprintf',
  'vasprintf',
  'getline',
  'getdelim',
  '__getdelim',
  'posix_memalign',
]);
/** Library functions whose result points into their first argument. */
export const RETURNS_FIRST_ARGUMENT = new Set([
  'strcpy',
  'strncpy',
  'stpcpy',
  'stpncpy',
  'strcat',
  'strncat',
  'memchr',
  'memrchr',
  'rawmemchr',
  'strchr',
  'strrchr',
  'strchrnul',
  'strstr',
  'strcasestr',
  'strpbrk',
  'strtok',
  'strtok_r',
  'memset',
  'fgets',
  'strptime',
]);
/**
 * Library functions that return a pointer to memory the C library owns (a static buffer, the
 * environment, a table) holding no pointer of the program, and neither keep nor write through
 * their arguments: the result points to an object of the library's own, one per function, whose
 * fields point into it (`getpwuid(…)->pw_name`); the arguments stay untouched. `putenv` puts the
 * program's strings into the environment that `getenv` returns.
 */
export const RETURNS_LIBRARY_MEMORY = new Set([
  'getenv',
  'secure_getenv',
  '__ctype_b_loc',
  '__ctype_tolower_loc',
  '__ctype_toupper_loc',
  '__errno_location',
  'strerror',
  'strsignal',
  'setlocale',
  'localeconv',
  'nl_langinfo',
  'localtime',
  'localtime64',
  'gmtime',
  'gmtime64',
  'ctime',
  'asctime',
  'dlopen',
  'dlerror',
  'tmpnam',
  'ttyname',
  'getlogin',
  'getpwnam',
  'getpwuid',
  'getgrnam',
  'getgrgid',
  'readdir',
  'readdir64',
  'gai_strerror',
  'inet_ntoa',
  'gethostbyname',
]);
/**
 * Library functions that return a pointer the analysis cannot place: a symbol of any module
 * (`dlsym`), the previous signal handler. The result is the unknown object; the arguments stay
 * untouched.
 */
export const RETURNS_UNKNOWN_ONLY = new Set([
  'dlsym',
  'dlvsym',
  'signal',
  '__sysv_signal',
  'bsd_signal',
  'sigset',
]);
/**
 * The `scanf` family: `%p` stores a pointer read from text (the unknown object) through a pointer
 * argument after the format; the others store numbers and characters. The index of the first
 * argument after the format.
 */
export const SCANS_INTO_ARGUMENTS: ReadonlyMap<string, number> = new Map([
  ['scanf', 1],
  ['__isoc99_scanf', 1],
  ['fscanf', 2],
  ['__isoc99_fscanf', 2],
  ['sscanf', 2],
  ['__isoc99_sscanf', 2],
]);
/** Library functions that store their first argument through their second (`strtol(s, &end)`). */
export const STORES_FIRST_INTO_SECOND = new Set([
  'strtol',
  'strtoul',
  'strtoll',
  'strtoull',
  'strtod',
  'strtof',
  'strtold',
]);
/** Library functions with no effect on pointers. */
export const NO_POINTER_EFFECT = new Set([
  // The C++ runtime: operator delete, exceptions' bookkeeping, static-local guards.
  '_ZdlPv',
  '_ZdaPv',
  '_ZdlPvm',
  '_ZdaPvm',
  '_ZdlPvSt11align_val_t',
  '_ZdaPvSt11align_val_t',
  '_ZdlPvmSt11align_val_t',
  '_ZdaPvmSt11align_val_t',
  '__cxa_free_exception',
  '__cxa_end_catch',
  '__cxa_rethrow',
  '__cxa_pure_virtual',
  '__cxa_deleted_virtual',
  '__cxa_guard_acquire',
  '__cxa_guard_release',
  '__cxa_guard_abort',
  '__cxa_bad_cast',
  '__cxa_bad_typeid',
  '__clang_call_terminate',
  '_ZSt9terminatev',
  '__gxx_personality_v0',
  'free',
  'printf',
  'fprintf',
  'sprintf',
  'snprintf',
  'vprintf',
  'vfprintf',
  'vsprintf',
  'vsnprintf',
  'puts',
  'fputs',
  'putchar',
  'putc',
  'fputc',
  'fwrite',
  'fread',
  'fclose',
  'fflush',
  'fseek',
  'ftell',
  'rewind',
  'feof',
  'ferror',
  'getc',
  'fgetc',
  'getchar',
  'ungetc',
  'strlen',
  'strnlen',
  'strcmp',
  'strncmp',
  'strcasecmp',
  'strncasecmp',
  'strcoll',
  'strspn',
  'strcspn',
  'memcmp',
  'atoi',
  'atol',
  'atoll',
  'atof',
  'abs',
  'labs',
  'exit',
  '_exit',
  'abort',
  '__assert_fail',
  '__stack_chk_fail',
  'rand',
  'srand',
  'time',
  'clock',
  'sleep',
  'isalpha',
  'isdigit',
  'isspace',
  'isalnum',
  'isupper',
  'islower',
  'toupper',
  'tolower',
  'sqrt',
  'pow',
  'floor',
  'ceil',
  'fabs',
  'exp',
  'log',
  'sin',
  'cos',
  'remove',
  'rename',
  'perror',
  'setvbuf',
  'raise',
  'system',
  'longjmp',
  '_longjmp',
  '_setjmp',
  'setjmp',
  'sigsetjmp',
  'siglongjmp',
  'acos',
  'asin',
  'atan',
  'atan2',
  'cosh',
  'sinh',
  'tan',
  'tanh',
  'log10',
  'log2',
  'fmod',
  'frexp',
  'ldexp',
  'modf',
  'clearerr',
  'close',
  'open',
  'open64',
  'read',
  'write',
  'lseek',
  'lseek64',
  'fseeko',
  'fseeko64',
  'ftello',
  'ftello64',
  'flockfile',
  'funlockfile',
  'getc_unlocked',
  'isatty',
  'fileno',
  'fchmod',
  'fchown',
  'stat',
  'stat64',
  'lstat',
  'lstat64',
  'fstat',
  'fstat64',
  'unlink',
  'utime',
  'mkstemp',
  'mkstemp64',
  'pclose',
  'sigemptyset',
  'sigaddset',
  'difftime',
  'mktime',
  'strftime',
  'dlclose',
  'puts',
  'iscntrl',
  'ispunct',
  'isxdigit',
  'isprint',
  'isgraph',
  // Files, processes and time: descriptors, numbers and buffers of bytes.
  'access',
  'faccessat',
  'ftruncate',
  'ftruncate64',
  'truncate',
  'fcntl',
  'fcntl64',
  'mkdir',
  'rmdir',
  'chdir',
  'chmod',
  'chown',
  'lchown',
  'symlink',
  'link',
  'readlink',
  'utimes',
  'utimensat',
  'futimens',
  'fsync',
  'fdatasync',
  'pread',
  'pread64',
  'pwrite',
  'pwrite64',
  'munmap',
  'msync',
  'madvise',
  'sysconf',
  'getpagesize',
  'getpid',
  'getppid',
  'getuid',
  'geteuid',
  'getgid',
  'getegid',
  'gettimeofday',
  'clock_gettime',
  'getrusage',
  'getrlimit',
  'setrlimit',
  'setpriority',
  'usleep',
  'nanosleep',
  'closedir',
  'umask',
  'dup',
  'dup2',
  'pipe',
  'posix_fallocate',
  'fallocate',
  'backtrace',
  'cbrt',
  'round',
  'trunc',
  'fmin',
  'fmax',
  'hypot',
  'expm1',
  'log1p',
]);

/** An argument the library passes to a callback: argument `argument` of the call, or a pointer anywhere into it (`qsort`'s elements). */
export interface CallbackArgument {
  readonly argument: number;
  readonly anywhereInto?: boolean;
}

/**
 * Library functions that call a function they are given: `callee` is the index of the function
 * pointer argument, `passes[j]` what the callback receives as its parameter `j`, `returns` the
 * argument the library function returns (a pointer into it).
 */
export const CALLS_BACK: ReadonlyMap<
  string,
  {
    readonly callee: number;
    readonly passes: readonly (CallbackArgument | undefined)[];
    readonly returns?: CallbackArgument;
  }
> = new Map([
  // qsort(base, n, size, cmp): cmp(&base[i], &base[j])
  [
    'qsort',
    {
      callee: 3,
      passes: [
        { argument: 0, anywhereInto: true },
        { argument: 0, anywhereInto: true },
      ],
    },
  ],
  // qsort_r(base, n, size, cmp, arg): cmp(&base[i], &base[j], arg)
  [
    'qsort_r',
    {
      callee: 3,
      passes: [{ argument: 0, anywhereInto: true }, { argument: 0, anywhereInto: true }, { argument: 4 }],
    },
  ],
  // bsearch(key, base, n, size, cmp): cmp(key, &base[i]), returns &base[i]
  [
    'bsearch',
    {
      callee: 4,
      passes: [{ argument: 0 }, { argument: 1, anywhereInto: true }],
      returns: { argument: 1, anywhereInto: true },
    },
  ],
  // lfind/lsearch(key, base, &n, size, cmp): as bsearch
  [
    'lfind',
    {
      callee: 4,
      passes: [{ argument: 0 }, { argument: 1, anywhereInto: true }],
      returns: { argument: 1, anywhereInto: true },
    },
  ],
  [
    'lsearch',
    {
      callee: 4,
      passes: [{ argument: 0 }, { argument: 1, anywhereInto: true }],
      returns: { argument: 1, anywhereInto: true },
    },
  ],
  // pthread_create(&thread, attr, start, arg): start(arg); thrd_create(&thread, start, arg)
  ['pthread_create', { callee: 2, passes: [{ argument: 3 }] }],
  ['thrd_create', { callee: 1, passes: [{ argument: 2 }] }],
  ['pthread_once', { callee: 1, passes: [] }],
  ['call_once', { callee: 1, passes: [] }],
  // atexit(fn), on_exit(fn, arg): fn(status, arg), __cxa_atexit(dtor, obj, dso): dtor(obj)
  ['atexit', { callee: 0, passes: [] }],
  ['on_exit', { callee: 0, passes: [undefined, { argument: 1 }] }],
  ['__cxa_atexit', { callee: 0, passes: [{ argument: 1 }] }],
  ['__cxa_thread_atexit', { callee: 0, passes: [{ argument: 1 }] }],
  // __cxa_throw(obj, type, dtor): dtor(obj) when the exception is done
  ['__cxa_throw', { callee: 2, passes: [{ argument: 0 }] }],
  // tsearch/tfind/tdelete(key, &root, cmp): cmp(key, a stored key); the result is a tree node
  ['tsearch', { callee: 2, passes: [{ argument: 0 }, { argument: 0 }] }],
  ['tfind', { callee: 2, passes: [{ argument: 0 }, { argument: 0 }] }],
]);

/**
 * Library functions that return (a pointer into) one of their arguments, beside
 * {@link RETURNS_FIRST_ARGUMENT}: the index of that argument.
 */
export const RETURNS_ARGUMENT: ReadonlyMap<string, number> = new Map([
  ['localtime_r', 1],
  ['gmtime_r', 1],
  ['ctime_r', 1],
  ['asctime_r', 1],
  ['memccpy', 0],
  ['mempcpy', 0],
  ['wmemcpy', 0],
]);
