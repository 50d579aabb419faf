import { accounts } from './eth/accounts.ts'
import { blockNumber } from './eth/blockNumber.ts'
import { call } from './eth/call.ts'
import { chainId } from './eth/chainId.ts'
import { estimateGas } from './eth/estimateGas.ts'
import { feeHistory } from './eth/feeHistory.ts'
import { gasPrice } from './eth/gasPrice.ts'
import { getBalance } from './eth/getBalance.ts'
import { getBlockByHash } from './eth/getBlockByHash.ts'
import { getBlockByNumber } from './eth/getBlockByNumber.ts'
import { getBlockTransactionCountByHash } from './eth/getBlockTransactionCountByHash.ts'
import { getBlockTransactionCountByNumber } from './eth/getBlockTransactionCountByNumber.ts'
import { getCode } from './eth/getCode.ts'
import { getLogs } from './eth/getLogs.ts'
import { getStorageAt } from './eth/getStorageAt.ts'
import { getTransactionByHash } from './eth/getTransactionByHash.ts'
import { getTransactionCount } from './eth/getTransactionCount.ts'
import { getTransactionReceipt } from './eth/getTransactionReceipt.ts'
import { maxPriorityFeePerGas } from './eth/maxPriorityFeePerGas.ts'
import { sendRawTransaction } from './eth/sendRawTransaction.ts'
import { sendRawTransactionSync } from './eth/sendRawTransactionSync.ts'
import { sendTransaction } from './eth/sendTransaction.ts'
import { syncing } from './eth/syncing.ts'
import { requestAccounts } from './eth/requestAccounts.ts'
import { mine } from './evm/mine.ts'
import { getPendingApprovals } from './flashchain/getPendingApprovals.ts'
import { getWatchedAssets } from './flashchain/getWatchedAssets.ts'
import { preconfirm } from './flashchain/preconfirm.ts'
import { resolveApproval } from './flashchain/resolveApproval.ts'
import { setApprovalPolicy } from './flashchain/setApprovalPolicy.ts'
import { version } from './net/version.ts'
import { getCallsStatus } from './wallet/getCallsStatus.ts'
import { getCapabilities } from './wallet/getCapabilities.ts'
import { getPermissions } from './wallet/getPermissions.ts'
import { requestPermissions } from './wallet/requestPermissions.ts'
import { revokePermissions } from './wallet/revokePermissions.ts'
import { sendCalls } from './wallet/sendCalls.ts'
import { showCallsStatus } from './wallet/showCallsStatus.ts'
import { watchAsset } from './wallet/watchAsset.ts'
import { clientVersion } from './web3/clientVersion.ts'

import type { Method } from './method.ts'

/** The registry: every method the endpoint answers, by wire name. */
export const methods: Record<string, Method> = {
  eth_accounts: accounts,
  eth_blockNumber: blockNumber,
  eth_call: call,
  eth_chainId: chainId,
  eth_estimateGas: estimateGas,
  eth_feeHistory: feeHistory,
  eth_gasPrice: gasPrice,
  eth_getBalance: getBalance,
  eth_getBlockByHash: getBlockByHash,
  eth_getBlockByNumber: getBlockByNumber,
  eth_getBlockTransactionCountByHash: getBlockTransactionCountByHash,
  eth_getBlockTransactionCountByNumber: getBlockTransactionCountByNumber,
  eth_getCode: getCode,
  eth_getLogs: getLogs,
  eth_getStorageAt: getStorageAt,
  eth_getTransactionByHash: getTransactionByHash,
  eth_getTransactionCount: getTransactionCount,
  eth_getTransactionReceipt: getTransactionReceipt,
  eth_maxPriorityFeePerGas: maxPriorityFeePerGas,
  eth_requestAccounts: requestAccounts,
  eth_sendRawTransaction: sendRawTransaction,
  eth_sendRawTransactionSync: sendRawTransactionSync,
  eth_sendTransaction: sendTransaction,
  eth_syncing: syncing,
  evm_mine: mine,
  flashchain_getPendingApprovals: getPendingApprovals,
  flashchain_getWatchedAssets: getWatchedAssets,
  flashchain_preconfirm: preconfirm,
  flashchain_resolveApproval: resolveApproval,
  flashchain_setApprovalPolicy: setApprovalPolicy,
  net_version: version,
  wallet_getCallsStatus: getCallsStatus,
  wallet_getCapabilities: getCapabilities,
  wallet_getPermissions: getPermissions,
  wallet_requestPermissions: requestPermissions,
  wallet_revokePermissions: revokePermissions,
  wallet_sendCalls: sendCalls,
  wallet_showCallsStatus: showCallsStatus,
  wallet_watchAsset: watchAsset,
  web3_clientVersion: clientVersion,
}
