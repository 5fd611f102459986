// The message keys of the common base module (docs/common-module.md): the spec's
// shared keys for a resource that another request names but that does not exist, and
// the refusals of a delete that would leave other records pointing at nothing. The
// errors that other modules throw too (`locationNotFoundByName`, …) stay beside the
// services that export them: other modules reach this one only through its services.

export const COMMON_KEYS = {
  accountNotFound: 'svc.common.common.account.notFound',
  accountNotFoundByPKey: 'svc.common.common.account.notFoundByPKey',
  noDefaultAccount: 'svc.common.common.account.noDefaultAccount',
  lgNotFoundByName: 'svc.common.common.lg.notFoundByName',
  lgNotFoundByPKey: 'svc.common.common.lg.notFoundByPKey',
  lgNotEmpty: 'svc.common.common.lg.notEmpty',
  lgInUse: 'svc.common.common.lg.inUse',
  locNotFoundByName: 'svc.common.common.loc.notFoundByName',
  locNotEmpty: 'svc.common.common.loc.notEmpty',
  locInUse: 'svc.common.common.loc.inUse',
  ltNotFoundByType: 'svc.common.common.lt.notFoundByType',
  ltNotFoundByPKey: 'svc.common.common.lt.notFoundByPKey',
  ltInUse: 'svc.common.common.lt.inUse',
  tuNotFoundByBK: 'svc.common.common.tu.notFoundByBK',
  tuNotFoundByPKey: 'svc.common.common.tu.notFoundByPKey',
  tuInUse: 'svc.common.common.tu.inUse',
  tutNotFoundByName: 'svc.common.common.tut.notFoundByName',
  tutNotFoundByPKey: 'svc.common.common.tut.notFoundByPKey',
  tutInUse: 'svc.common.common.tut.inUse',
} as const;
